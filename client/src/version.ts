/** The API version this client speaks (the served document's `info.version`); the package's version follows it. */
export const API_VERSION = '1.0.0';
