/* Placeholder until the libunistring implementation lands: ASCII only. */
#include "config.h"
#include "text.h"
#include <string.h>
static bool utf8 = true;
void text_init(bool u) { utf8 = u; }
bool text_is_utf8(void) { return utf8; }
int text_width(const char *s, size_t len) { (void)s; return (int)len; }
size_t text_sanitize(const char *s, size_t len, char *out, size_t outsize)
{
	size_t j = 0;
	for (size_t i = 0; i < len && j + 1 < outsize; i++)
		out[j++] = (s[i] >= 32 && s[i] < 127) ? s[i] : '?';
	out[j] = 0;
	return j;
}
int text_fit(const char *s, size_t len, int cols, char *out, size_t outsize)
{
	if (cols <= 0) { out[0] = 0; return 0; }
	if ((int)len <= cols) return (int)text_sanitize(s, len, out, outsize);
	if (cols < 3) { out[0] = 0; return 0; }
	text_sanitize(s, (size_t)cols - 2, out, outsize);
	strcat(out, "..");
	return cols;
}
int text_fit_middle(const char *s, size_t len, int cols, char *out, size_t outsize) { return text_fit(s, len, cols, out, outsize); }
