/**
 * What every upload route (list imports, the verification tool, drip recipients) answers
 * when the body itself is wrong, before or while it is read. Nothing is stored in any case.
 */
export const UPLOAD_MESSAGES = {
  /** 400: a `Content-Encoding` other than identity (gzip, deflate, br). */
  encoded:
    'Send the file uncompressed: Sendwell does not take compressed uploads (Content-Encoding). Nothing was stored.',
  /** 400: the body ended before its end (a form without its closing boundary, JSON cut off). */
  cutShort: 'The upload was cut short before the whole file arrived. Nothing was stored; please upload it again.',
  /** 400: a JSON body that does not parse (cut off, or not JSON at all). */
  notJson: 'The upload is not complete JSON: it was cut short or is not JSON at all. Nothing was stored.',
  /** 413, when the route has no message of its own. */
  tooLarge: 'This upload is larger than Sendwell takes here. Nothing was stored.',
} as const;
