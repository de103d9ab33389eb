// Share links: the scenario's compact JSON in unpadded base64url, as
// web/share.go reads it.

/** encodeShare encodes a scenario for a share link's s parameter. */
export function encodeShare(sc) {
  const bytes = new TextEncoder().encode(JSON.stringify(sc));
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
