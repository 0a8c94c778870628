/**
 * The parts of libmime (a mailparser dependency, pinned beside it) the report reader uses:
 * encoded-word and parameter decoding, and its charset decoder (iconv-lite, and
 * encoding-japanese for ISO-2022-JP). The package ships no types.
 */
declare module 'libmime' {
  const libmime: {
    decodeWords(value: string): string;
    parseHeaderValue(value: string): { value: string; params: Record<string, string> };
  };
  export default libmime;
}

declare module 'libmime/lib/charset.js' {
  const charsets: {
    decode(bytes: Buffer, charset: string): string;
    normalizeCharset(charset: string): string;
  };
  export default charsets;
}
