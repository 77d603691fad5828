/* Unit tests of the config file syntax (conf.h). Each entry the parser hands
 * over is recorded as "name=value" ("name" alone for a bare NAME), joined
 * with '|', and compared with what the format's rules give by hand. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "conf.h"
#include "tap.h"

struct rec {
	char out[512];
	const char *reject;     /* entry name the callback refuses, or NULL */
};

static bool record(void *ctx, const char *name, const char *value, char *err, size_t errsize)
{
	struct rec *r = ctx;
	size_t n = strlen(r->out);
	if (r->reject && strcmp(name, r->reject) == 0) {
		snprintf(err, errsize, "no %s here", name);
		return false;
	}
	snprintf(r->out + n, sizeof r->out - n, "%s%s%s%s", n ? "|" : "", name,
	         value ? "=" : "", value ? value : "");
	return true;
}

/* Parses in (copied to a heap block of exactly len + 1 bytes, so ASan sees
 * any read or write beyond the spare byte) and checks entries, the returned
 * line and the message. */
static void t(const char *name, const char *in, const char *reject, const char *want,
              size_t want_line, const char *want_err)
{
	size_t len = strlen(in);
	char *b = malloc(len + 1);
	char err[128];
	struct rec r = { .out = "", .reject = reject };
	if (!b)
		abort();
	memcpy(b, in, len);
	size_t line = conf_parse(b, len, record, &r, err, sizeof err);
	free(b);
	int good = strcmp(r.out, want) == 0 && line == want_line &&
	           (!want_err || strcmp(err, want_err) == 0);
	ok(good, "%s", name);
	if (!good)
		printf("#   got '%s' line %zu err '%s'\n#   want '%s' line %zu err '%s'\n", r.out, line,
		       line ? err : "", want, want_line, want_err ? want_err : "");
}

int main(void)
{
	t("empty file", "", NULL, "", 0, NULL);
	t("one entry", "sort = weight\n", NULL, "sort=weight", 0, NULL);
	t("no final newline", "sort=weight", NULL, "sort=weight", 0, NULL);
	t("blanks around name and value are dropped", " \tmin-width\t=  3 \t\n", NULL, "min-width=3", 0, NULL);
	t("bare name", "inverted\n", NULL, "inverted", 0, NULL);
	t("empty value is \"\", not NULL", "event-filter =\n", NULL, "event-filter=", 0, NULL);
	t("comments and blank lines", "# a comment\n\n   # indented\n\t\nsort = name\n", NULL,
	  "sort=name", 0, NULL);
	t("'#' inside a value is kept", "color-rule = a#b # c\n", NULL, "color-rule=a#b # c", 0, NULL);
	t("'=' inside a value is kept", "x = a=b\n", NULL, "x=a=b", 0, NULL);
	t("CRLF line ends", "sort = weight\r\ninverted\r\n", NULL, "sort=weight|inverted", 0, NULL);
	t("entries in file order", "a = 1\nb\nc = 3\n", NULL, "a=1|b|c=3", 0, NULL);
	/* Errors: the line number counts every line, comments and blanks too. */
	t("missing name is an error at its line", "# c\n\n= 3\n", NULL, "", 3,
	  "expected NAME = VALUE");
	t("dashes are refused with a hint", "a = 1\n--sort = name\n", NULL, "a=1", 2,
	  "write option names without their dashes");
	t("a space inside the name is an error", "min width = 3\n", NULL, "", 1, NULL);
	t("the callback's error stops at its line", "a = 1\nbad = 2\nc = 3\n", "bad", "a=1", 2,
	  "no bad here");
	/* strlen stops at the NUL: the parser sees "a = 1\nb". */
	t("text ends at len", "a = 1\nb\0c = 2\n", NULL, "a=1|b", 0, NULL);
	{
		/* With the NUL inside the parsed length. */
		char in[] = "a = 1\nb = x\0y\n";
		size_t len = sizeof in - 1;
		char *b = malloc(len + 1);
		char err[128];
		struct rec r = { .out = "" };
		memcpy(b, in, len);
		size_t line = conf_parse(b, len, record, &r, err, sizeof err);
		free(b);
		ok(line == 2 && strcmp(r.out, "a=1") == 0, "NUL byte: error at line 2");
	}

	bool v = false;
	ok(conf_bool("yes", &v) && v, "conf_bool: yes");
	ok(conf_bool("TRUE", &v) && v, "conf_bool: TRUE (any case)");
	ok(conf_bool("on", &v) && v && conf_bool("1", &v) && v, "conf_bool: on, 1");
	ok(conf_bool("no", &v) && !v && conf_bool("Off", &v) && !v && conf_bool("0", &v) && !v &&
	   conf_bool("false", &v) && !v, "conf_bool: no, Off, 0, false");
	ok(!conf_bool("maybe", &v) && !conf_bool("", &v) && !conf_bool("yess", &v),
	   "conf_bool: maybe, empty, yess are refused");

	/* Path resolution. */
	bool ex;
	char *p;
	setenv("TFLAME_CONFIG", "/x/y", 1);
	p = conf_path(&ex);
	ok(p && strcmp(p, "/x/y") == 0 && ex, "TFLAME_CONFIG names the file, explicitly");
	free(p);
	setenv("TFLAME_CONFIG", "", 1);
	p = conf_path(&ex);
	ok(!p && ex, "empty TFLAME_CONFIG: no config file");
	free(p);
	unsetenv("TFLAME_CONFIG");
	setenv("XDG_CONFIG_HOME", "/xdg", 1);
	setenv("HOME", "/home/u", 1);
	p = conf_path(&ex);
	ok(p && strcmp(p, "/xdg/tflame/config") == 0 && !ex, "XDG_CONFIG_HOME/tflame/config");
	free(p);
	setenv("XDG_CONFIG_HOME", "relative", 1);
	p = conf_path(&ex);
	ok(p && strcmp(p, "/home/u/.config/tflame/config") == 0, "relative XDG_CONFIG_HOME is ignored");
	free(p);
	unsetenv("XDG_CONFIG_HOME");
	p = conf_path(&ex);
	ok(p && strcmp(p, "/home/u/.config/tflame/config") == 0 && !ex, "default: ~/.config/tflame/config");
	free(p);
	unsetenv("HOME");
	p = conf_path(&ex);
	ok(!p, "no HOME and no XDG_CONFIG_HOME: none");
	free(p);

	size_t len = 0;
	errno = 0;
	ok(!conf_read("/nonexistent/tflame/config", &len) && errno == ENOENT, "conf_read: ENOENT");
	char tmpl[] = "/tmp/tflame-conf.XXXXXX";
	int fd = mkstemp(tmpl);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	/* 10000 bytes: more than the first 4096-byte read. */
	for (int i = 0; f && i < 1000; i++)
		fputs("sort=name\n", f);
	if (f)
		fclose(f);
	char *text = conf_read(tmpl, &len);
	ok(text && len == 10000 && text[len] == '\0' && memcmp(text + 9990, "sort=name\n", 10) == 0,
	   "conf_read: a 10000-byte file, whole and terminated");
	free(text);
	unlink(tmpl);
	ok(!conf_read("/", &len) && errno == EISDIR, "conf_read: a directory is EISDIR");

	/* conf_read_file: the cap is exact, the reason is given, and nothing
	 * but a regular file is read (issue 21: /dev/zero filled memory, a
	 * FIFO blocked). */
	char why[128], t2[] = "/tmp/tflame-conf.XXXXXX", t3[] = "/tmp/tflame-conf.XXXXXX";
	fd = mkstemp(t2);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	for (int i = 0; f && i < 100; i++)
		fputc('a' + i % 26, f);
	if (f)
		fclose(f);
	text = conf_read_file(t2, 100, &len, why, sizeof why);
	ok(text && len == 100 && text[99] == 'a' + 99 % 26 && text[100] == '\0', "conf_read_file: 100 bytes, max 100: read");
	free(text);
	text = conf_read_file(t2, 99, &len, why, sizeof why);
	ok(!text && errno == EFBIG && strcmp(why, "larger than 99 bytes") == 0, "conf_read_file: 100 bytes, max 99: EFBIG (%s)", why);
	text = conf_read_file(t2, 3 * 1024 * 1024, &len, why, sizeof why);
	ok(text && len == 100, "conf_read_file: a small file under a large max");
	free(text);
	unlink(t2);
	text = conf_read_file("/dev/zero", 100, &len, why, sizeof why);
	ok(!text && errno == EINVAL && strcmp(why, "not a regular file (a character device)") == 0,
	   "conf_read_file: /dev/zero refused (%s)", why);
	text = conf_read_file("/", 100, &len, why, sizeof why);
	ok(!text && errno == EISDIR && strcmp(why, strerror(EISDIR)) == 0, "conf_read_file: a directory: %s", why);
	text = conf_read_file("/nonexistent/x", 100, &len, why, sizeof why);
	ok(!text && errno == ENOENT && strcmp(why, strerror(ENOENT)) == 0, "conf_read_file: missing: %s", why);
	char fifo[] = "/tmp/tflame-conf-fifo.XXXXXX";
	int dfd = mkstemp(fifo);
	if (dfd >= 0) {
		close(dfd);
		unlink(fifo);
	}
	if (dfd >= 0 && mkfifo(fifo, 0600) == 0) {
		/* No writer: a blocking open would never return. */
		text = conf_read_file(fifo, 100, &len, why, sizeof why);
		ok(!text && errno == EINVAL && strcmp(why, "not a regular file (a FIFO)") == 0,
		   "conf_read_file: a FIFO is refused without blocking (%s)", why);
		unlink(fifo);
	} else {
		ok(1, "conf_read_file: a FIFO # SKIP mkfifo failed");
	}
	/* 5 MB + 1 byte under a 5 MB cap: the reason names the cap. */
	fd = mkstemp(t3);
	if (fd >= 0 && ftruncate(fd, 5 * 1024 * 1024 + 1) == 0) {
		text = conf_read_file(t3, 5 * 1024 * 1024, &len, why, sizeof why);
		ok(!text && errno == EFBIG && strcmp(why, "larger than 5 MB") == 0, "conf_read_file: %s", why);
	} else {
		ok(1, "conf_read_file: 5 MB cap # SKIP ftruncate failed");
	}
	if (fd >= 0) {
		close(fd);
		unlink(t3);
	}
	return done_testing();
}
