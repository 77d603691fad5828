#include "config.h"
#include "conf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "xalloc.h"

static bool blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

/* Strips blanks (and a CR) from both ends of s[0..*n) in place. */
static char *trim(char *s, size_t *n)
{
	while (*n && blank(*s)) {
		s++;
		(*n)--;
	}
	while (*n && blank(s[*n - 1]))
		(*n)--;
	return s;
}

size_t conf_parse(char *text, size_t len, conf_entry_fn fn, void *ctx, char *err, size_t errsize)
{
	size_t lineno = 0;
	char *p = text, *end = text + len;

	if (errsize)
		err[0] = '\0';
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *eol = nl ? nl : end;
		size_t n = (size_t)(eol - p);
		char *line = trim(p, &n);
		p = nl ? nl + 1 : end;
		lineno++;

		if (n == 0 || line[0] == '#')
			continue;
		if (memchr(line, '\0', n)) {
			snprintf(err, errsize, "a NUL byte in the line");
			return lineno;
		}
		char *eq = memchr(line, '=', n);
		size_t nn = eq ? (size_t)(eq - line) : n;
		char *name = trim(line, &nn);
		char *value = NULL;
		if (nn == 0) {
			snprintf(err, errsize, "expected NAME = VALUE");
			return lineno;
		}
		if (name[0] == '-') {
			snprintf(err, errsize, "write option names without their dashes");
			return lineno;
		}
		for (size_t i = 0; i < nn; i++)
			if (!name_char(name[i])) {
				snprintf(err, errsize, "expected NAME = VALUE, NAME made of letters, digits and '-'");
				return lineno;
			}
		if (eq) {
			size_t vn = (size_t)(line + n - (eq + 1));
			value = trim(eq + 1, &vn);
			value[vn] = '\0';       /* inside the line or on its '\n' */
		}
		name[nn] = '\0';                /* on a blank, '=' or the line end */
		if (!fn(ctx, name, value, err, errsize))
			return lineno;
	}
	return 0;
}

bool conf_bool(const char *value, bool *out)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };
	for (size_t i = 0; i < 4; i++) {
		if (strcasecmp(value, yes[i]) == 0) {
			*out = true;
			return true;
		}
		if (strcasecmp(value, no[i]) == 0) {
			*out = false;
			return true;
		}
	}
	return false;
}

static char *join(const char *dir, const char *rest)
{
	size_t a = strlen(dir), b = strlen(rest);
	char *s = xmalloc(a + b + 1);
	memcpy(s, dir, a);
	memcpy(s + a, rest, b + 1);
	return s;
}

char *conf_path(bool *explicit)
{
	const char *env = getenv("TFLAME_CONFIG");
	*explicit = env != NULL;
	if (env)
		return *env ? xstrdup(env) : NULL;
	/* The XDG spec says relative values are to be ignored. */
	const char *xdg = getenv("XDG_CONFIG_HOME");
	if (xdg && xdg[0] == '/')
		return join(xdg, "/tflame/config");
	const char *home = getenv("HOME");
	if (home && *home)
		return join(home, "/.config/tflame/config");
	return NULL;
}

static const char *file_kind(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device"
	     : S_ISSOCK(m) ? "a socket" : "not a file";
}

/* Sets errno to e and why to its reason; returns NULL. */
static char *read_fail(int fd, char *buf, int e, char *why, size_t whysize, const char *reason)
{
	free(buf);
	if (fd >= 0)
		close(fd);
	if (why && whysize)
		snprintf(why, whysize, "%s", reason ? reason : strerror(e));
	errno = e;
	return NULL;
}

char *conf_read_file(const char *path, size_t max, size_t *len, char *why, size_t whysize)
{
	char reason[96];
	if (max % (1024 * 1024) == 0)
		snprintf(reason, sizeof reason, "larger than %zu MB", max / (1024 * 1024));
	else
		snprintf(reason, sizeof reason, "larger than %zu bytes", max);
	/* O_NONBLOCK: opening a FIFO for reading would wait for a writer. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return read_fail(-1, NULL, errno, why, whysize, NULL);
	struct stat st;
	if (fstat(fd, &st) != 0)
		return read_fail(fd, NULL, errno, why, whysize, NULL);
	if (S_ISDIR(st.st_mode))
		return read_fail(fd, NULL, EISDIR, why, whysize, NULL);
	if (!S_ISREG(st.st_mode)) {
		char what[64];
		snprintf(what, sizeof what, "not a regular file (%s)", file_kind(st.st_mode));
		return read_fail(fd, NULL, EINVAL, why, whysize, what);
	}
	if (st.st_size < 0 || (uintmax_t)st.st_size > max)
		return read_fail(fd, NULL, EFBIG, why, whysize, reason);
	/* The size is a hint (the file may change, /proc says 0): read to the
	 * end, but never past max. */
	size_t cap = (size_t)st.st_size < 4096 ? 4096 : (size_t)st.st_size + 1;
	if (cap > max + 1)
		cap = max + 1;
	size_t n = 0;
	char *buf = xmalloc(cap + 1);
	for (;;) {
		if (n == cap) {
			if (cap > max)
				return read_fail(fd, buf, EFBIG, why, whysize, reason);
			cap = cap > max / 2 ? max + 1 : cap * 2;
			buf = xrealloc(buf, cap + 1);
		}
		ssize_t got = read(fd, buf + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return read_fail(fd, buf, errno, why, whysize, NULL);
		if (got == 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
}

char *conf_read(const char *path, size_t *len)
{
	return conf_read_file(path, CONF_MAX_BYTES, len, NULL, 0);
}
