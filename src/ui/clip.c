#include "config.h"
#include "clip.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "text.h"
#include "xalloc.h"

size_t clip_base64(const void *data, size_t len, char *out)
{
	static const char digits[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *p = data;
	char *o = out;
	size_t i = 0;
	for (; i + 3 <= len; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
		*o++ = digits[v >> 18];
		*o++ = digits[v >> 12 & 63];
		*o++ = digits[v >> 6 & 63];
		*o++ = digits[v & 63];
	}
	if (i < len) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < len ? (uint32_t)p[i + 1] << 8 : 0);
		*o++ = digits[v >> 18];
		*o++ = digits[v >> 12 & 63];
		*o++ = i + 1 < len ? digits[v >> 6 & 63] : '=';
		*o++ = '=';
	}
	*o = '\0';
	return (size_t)(o - out);
}

int clip_osc52(FILE *out, const void *data, size_t len)
{
	if (len > CLIP_MAX_BYTES)
		return -1;
	char *b64 = xmalloc(CLIP_BASE64_LEN(len) + 1);
	size_t n = clip_base64(data, len, b64);
	/* "c": the clipboard selection. BEL ends it: older terminals and tmux
	 * accept it, as they do ST. */
	int rc = fputs("\033]52;c;", out) < 0 || fwrite(b64, 1, n, out) != n ||
	         fputs("\a", out) < 0 || fflush(out) != 0 ? -1 : 0;
	free(b64);
	return rc;
}

int clip_copy_text(FILE *out, const char *s, size_t len, size_t *sent, bool *escaped)
{
	/* The display form is never shorter than the bytes in a UTF-8 locale,
	 * and at most 4 times shorter in another ("?" for 4 bytes): beyond
	 * that it cannot fit, and is not worth making. */
	if (len > (text_is_utf8() ? 1 : 4) * (size_t)CLIP_MAX_BYTES) {
		*sent = len;
		*escaped = false;
		return CLIP_TOO_BIG;
	}
	size_t n;
	char *safe = text_sanitize_dup(s, len, &n);
	*sent = n;
	*escaped = n != len || memcmp(safe, s, n) != 0;
	int rc = n > CLIP_MAX_BYTES ? CLIP_TOO_BIG : clip_osc52(out, safe, n);
	free(safe);
	return rc;
}
