// Tests read JSON bodies as `any`, as a client would; the DOM typings say `unknown`.
export {};
declare global {
  interface Response {
    json(): Promise<any>;
  }
}
