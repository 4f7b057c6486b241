#!/bin/sh
# The container image's steps, one home for them: the Dockerfile runs each, and test/runtime/image.test.ts runs the
# same steps on this machine (no container engine runs here). Usage: scripts/image.sh build|runtime|healthcheck.
set -eu
case "${1:-}" in
  build)
    # In the source tree, after `npm ci`: compiler and server to dist/, with the SQL, the model schema and Scalar.
    npm run build
    ;;
  runtime)
    # In the runtime folder holding package.json, package-lock.json, dist/ and scripts/: production packages only
    # (no TypeScript tooling, no embedded PostgreSQL); no install scripts are needed by any of them.
    npm ci --omit=dev --ignore-scripts --no-audit --no-fund
    ;;
  healthcheck)
    # 0 when the gateway on PORT answers /ready (its database answers), else 1.
    exec node -e "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
    ;;
  *)
    echo "usage: scripts/image.sh build|runtime|healthcheck" >&2
    exit 2
    ;;
esac
