# The gateway's image: a build stage compiles to dist/, the runtime holds production packages only and runs `serve`
# as a non-root user. Its steps are scripts/image.sh's, which test/runtime/image.test.ts runs in CI.
# docker build -t modelapi . ; see deploy/compose.yaml for PostgreSQL, the migration job and the gateway.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY tools/typed-client/package.json tools/typed-client/
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN sh scripts/image.sh build

FROM node:22-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production PORT=3000
COPY package.json package-lock.json ./
COPY tools/typed-client/package.json tools/typed-client/
COPY scripts/ scripts/
RUN sh scripts/image.sh runtime
COPY --from=build /app/dist dist/
COPY db/ db/
COPY examples/ examples/
RUN mkdir -p /app/files && chown node /app/files
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s CMD ["sh", "scripts/image.sh", "healthcheck"]
CMD ["node", "dist/ops/cli/serve.js"]
