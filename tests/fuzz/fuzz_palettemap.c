/* libFuzzer harness: palette map files (flamegraph.pl's palette.map), the
 * text as palette_rules_load_map reads it, through palette_rules_parse_map.
 * Invariants: -1 comes with a "NAME:LINE: " message (the name, which holds
 * an escape, shown escaped) free of control bytes; after a whole map loads,
 * every name it gives a colour is painted flat (the map is found), and no
 * more names are kept than the map has lines. */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "palette.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The last "->" of s[0..len), as the map's lines are split, or NULL. */
static const char *arrow_of(const char *s, size_t len)
{
	for (size_t i = len; i-- > 1;)
		if (s[i - 1] == '-' && s[i] == '>')
			return s + i - 1;
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exact-size heap copy so ASan sees any read past size. */
	char *text = malloc(size ? size : 1);
	if (!text)
		abort();
	memcpy(text, data, size);
	struct palette_rules *r = palette_rules_new();
	char err[300];
	err[0] = '\0';
	static const char name[] = "map\033]0;T\a";
	static const char shown[] = "map^[]0;T^G:";
	int rc = palette_rules_parse_map(r, name, text, size, err, sizeof err);
	size_t lines = 1;
	for (size_t i = 0; i < size; i++)
		lines += text[i] == '\n';
	if ((rc != 0 && rc != -1) || palette_rules_map_count(r) > lines)
		abort();
	if (rc == -1) {
		if (strncmp(err, shown, sizeof shown - 1) != 0)
			abort();
		for (const unsigned char *c = (const unsigned char *)err; *c; c++)
			if (*c < 0x20 || *c == 0x7f)
				abort();
	} else {
		/* Every line with a "->" named a colour: its name is found. */
		const struct palette *p = palette_list[0];
		char *key = malloc(size + 1);
		if (!key)
			abort();
		for (const char *s = text, *end = text + size; s < end;) {
			const char *nl = memchr(s, '\n', (size_t)(end - s));
			size_t len = (size_t)((nl ? nl : end) - s);
			while (len > 0 && s[len - 1] == '\r')
				len--;
			const char *a = arrow_of(s, len);
			if (a) {
				size_t kl = (size_t)(a - s);
				memcpy(key, s, kl);
				key[kl] = '\0';
				if (palette_look(p, r, key, kl).hue != PALETTE_HUE_FLAT)
					abort();
			}
			s = nl ? nl + 1 : end;
		}
		free(key);
	}
	palette_rules_free(r);
	free(text);
	return 0;
}
