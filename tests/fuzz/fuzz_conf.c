/* libFuzzer harness: the config file, through the parser (conf_parse) and
 * the options table's handler of each entry (options_config_entry, then
 * the option's setter, the code the command line goes through too).
 * Entries that would compile a regex (search, color-rule) or read a file
 * (palette-map) are checked for syntax only: regexes have harnesses of their
 * own (and a pathological one is issue 21's defect 1, not a config bug),
 * map files have fuzz_palettemap.c, and a fuzzer must not open paths.
 * Invariants: entries hold only name characters and trimmed values inside
 * the text; an error's line is a line of the text and its message is
 * terminal-safe (no control byte). */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "conf.h"
#include "options.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fz {
	struct settings s;
	const char *text;
	size_t len, entries;
};

static bool blank_byte(char c) { return c == ' ' || c == '\t' || c == '\r'; }

static bool fz_entry(void *ctx, const char *name, const char *value, char *err, size_t errsize)
{
	struct fz *z = ctx;
	size_t nn = strlen(name);
	z->entries++;
	/* Names and values point into the text, NUL-terminated there. */
	if (nn == 0 || name < z->text || name + nn > z->text + z->len)
		abort();
	for (size_t i = 0; i < nn; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
		      (name[i] >= '0' && name[i] <= '9') || name[i] == '-' || name[i] == '_'))
			abort();
	if (value) {
		size_t vn = strlen(value);
		if (value < z->text || value + vn > z->text + z->len || memchr(value, '\n', vn) ||
		    (vn && (blank_byte(value[0]) || blank_byte(value[vn - 1]))))
			abort();
		bool b;
		conf_bool(value, &b);
	}
	if (strcmp(name, "search") == 0 || strcmp(name, "color-rule") == 0 ||
	    strcmp(name, "palette-map") == 0)
		return true;
	return options_config_entry(&z->s, name, value, err, errsize);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* conf_parse writes NULs into the text and needs text[size]. */
	char *text = malloc(size + 1);
	if (!text)
		abort();
	memcpy(text, data, size);
	struct fz z = { .text = text, .len = size };
	settings_init(&z.s, 1);
	char err[512];
	memset(err, 'X', sizeof err);
	size_t line = conf_parse(text, size, fz_entry, &z, err, sizeof err);
	size_t lines = 1;
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	if (line > lines || z.entries > lines)
		abort();
	if (line) {
		size_t n = strnlen(err, sizeof err);
		if (n == 0 || n == sizeof err)
			abort();
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)err[i] < 0x20 || err[i] == 0x7f)
				abort();
	}
	palette_rules_free(z.s.rules);
	free(text);
	return 0;
}
