// multipart/form-data bodies (RFC 7578) as the test servers receive uploads (the Telegram Bot API
// emulator's sendPhoto/sendDocument, the Discord emulator's messages with files): node has no
// parser built in, and the pinned emulators have none either.
//
//   parseMultipart(buffer, req.headers['content-type']) → {fields: {name: text}, files: [{field,
//   filename, contentType, bytes}]}, or null when the content type is not multipart/form-data.

export function parseMultipart(body, contentType) {
  const m = /multipart\/form-data;\s*boundary=("?)([^";]+)\1/i.exec(contentType ?? '');
  if (!m) return null;
  const delimiter = Buffer.from(`--${m[2]}`);
  const fields = {}, files = [];
  let pos = body.indexOf(delimiter);
  while (pos >= 0) {
    const start = pos + delimiter.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const next = body.indexOf(delimiter, start);
    if (next < 0) break;
    const part = body.subarray(start + 2, next - 2);  // after its CRLF, before the CRLF of the next delimiter
    const headEnd = part.indexOf('\r\n\r\n');
    const head = part.subarray(0, headEnd).toString();
    const bytes = part.subarray(headEnd + 4);
    const name = /name="([^"]*)"/.exec(head)?.[1];
    const filename = /filename="([^"]*)"/.exec(head)?.[1];
    if (filename !== undefined) {
      files.push({ field: name, filename, contentType: /content-type:\s*([^\r\n]+)/i.exec(head)?.[1], bytes: Buffer.from(bytes) });
    } else if (name !== undefined) {
      fields[name] = bytes.toString();
    }
    pos = next;
  }
  return { fields, files };
}
