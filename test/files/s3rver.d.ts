// Types of the parts of s3rver (a fake S3 server, CommonJS, no bundled types) the file suites use.
// s3rver checks presigned URLs' expiry but not SigV4 signatures.
declare module 's3rver' {
  interface S3rverOptions {
    port?: number;
    address?: string;
    directory?: string;
    silent?: boolean;
    resetOnClose?: boolean;
    configureBuckets?: Array<{ name: string; configs: Array<string | Buffer> }>;
  }
  export default class S3rver {
    constructor(options?: S3rverOptions);
    run(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
  }
}
