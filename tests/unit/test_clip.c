/* Unit tests of clip.h: base64 against RFC 4648's test vectors (section 10)
 * and the OSC 52 sequence around it. */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "clip.h"
#include "tap.h"

static void b64(const char *in, size_t len, const char *want)
{
	char out[64];
	size_t n = clip_base64(in, len, out);
	ok(n == strlen(want) && strcmp(out, want) == 0 && n == CLIP_BASE64_LEN(len),
	   "base64 of '%s' (%zu bytes) is '%s'", in, len, want);
	if (strcmp(out, want) != 0)
		printf("#   got '%s'\n", out);
}

int main(void)
{
	/* RFC 4648, section 10. */
	b64("", 0, "");
	b64("f", 1, "Zg==");
	b64("fo", 2, "Zm8=");
	b64("foo", 3, "Zm9v");
	b64("foob", 4, "Zm9vYg==");
	b64("fooba", 5, "Zm9vYmE=");
	b64("foobar", 6, "Zm9vYmFy");
	/* High bits and the last two digits: bytes ff fe 3f give
	 * 111111 111111 111000 111111 = "//4/". */
	b64("\xff\xfe\x3f", 3, "//4/");
	b64("\xfb\xff", 2, "+/8=");

	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	ok(f && clip_osc52(f, "main;a\033b", 8) == 0, "clip_osc52 writes");
	fclose(f);
	/* "main;a\033b": 6d 61 69 6e | 3b 61 1b 62 -> bWFp bjth G2I= */
	const char want[] = "\033]52;c;bWFpbjthG2I=\a";
	ok(size == sizeof want - 1 && memcmp(buf, want, size) == 0,
	   "the sequence is ESC ] 52 ; c ; base64 BEL, the ESC of the data encoded");
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &size);
	char *big = calloc(CLIP_MAX_BYTES + 1, 1);
	ok(clip_osc52(f, big, CLIP_MAX_BYTES + 1) == -1, "over CLIP_MAX_BYTES: refused");
	fclose(f);
	ok(size == 0, "over CLIP_MAX_BYTES: nothing written");
	free(big);
	free(buf);

	/* clip_copy_text: the display form goes out (issue 21). The base64
	 * strings are from coreutils' base64 of the expected text:
	 * printf 'a^[[201~^M^G' | base64 -> YV5bWzIwMX5eTV5H. */
	size_t sent = 0;
	bool escaped = false;
	buf = NULL;
	f = open_memstream(&buf, &size);
	ok(clip_copy_text(f, "a\033[201~\r\a", 9, &sent, &escaped) == 0 && sent == 12 && escaped,
	   "ESC, CR, BEL: 12 bytes as shown, escaped");
	fclose(f);
	const char want2[] = "\033]52;c;YV5bWzIwMX5eTV5H\a";
	ok(size == sizeof want2 - 1 && memcmp(buf, want2, size) == 0,
	   "a^[[201~^M^G is what reaches the clipboard");
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &size);
	/* "mäin" in UTF-8 is kept: bcOkaW4= */
	ok(clip_copy_text(f, "m\303\244in", 5, &sent, &escaped) == 0 && sent == 5 && !escaped,
	   "valid UTF-8 copied as it is, not escaped");
	fclose(f);
	const char want3[] = "\033]52;c;bcOkaW4=\a";
	ok(size == sizeof want3 - 1 && memcmp(buf, want3, size) == 0, "mäin's bytes reach the clipboard");
	free(buf);
	/* A name within the cap whose display form is not: CLIP_MAX_BYTES / 2
	 * + 1 ESC bytes become CLIP_MAX_BYTES + 2 bytes of ^[. */
	buf = NULL;
	f = open_memstream(&buf, &size);
	size_t nesc = CLIP_MAX_BYTES / 2 + 1;
	char *esc = malloc(nesc);
	memset(esc, 033, nesc);
	ok(clip_copy_text(f, esc, nesc, &sent, &escaped) == CLIP_TOO_BIG && sent == 2 * nesc,
	   "display form over CLIP_MAX_BYTES: refused, its size given");
	fclose(f);
	ok(size == 0, "refused: nothing written");
	free(esc);
	free(buf);
	return done_testing();
}
