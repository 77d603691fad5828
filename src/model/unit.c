#include "config.h"
#include "unit.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "text.h"

void unit_set(struct unit *u, const char *event, uint64_t samples)
{
	memset(u, 0, sizeof *u);
	u->samples = samples;
	if (!event || !*event)
		return;
	size_t n = strcspn(event, ":");
	if (n >= sizeof u->event)
		n = sizeof u->event - 1;
	memcpy(u->event, event, n);
	u->event[n] = '\0';
	u->ns = strcmp(u->event, "cpu-clock") == 0 || strcmp(u->event, "task-clock") == 0;
}

void unit_set_typed(struct unit *u, const char *type, const char *unit, uint64_t samples)
{
	memset(u, 0, sizeof *u);
	u->samples = samples;
	if (!type || !*type || (strcmp(type, "samples") == 0 && (!unit || strcmp(unit, "count") == 0)))
		return;
	snprintf(u->event, sizeof u->event, "%s", type);
	u->ns = unit && strcmp(unit, "nanoseconds") == 0;
	u->bytes = unit && strcmp(unit, "bytes") == 0;
}

void unit_group(const char *in, char *out, size_t size)
{
	size_t digits = strspn(in, "0123456789"), j = 0;
	if (!size)
		return;
	for (size_t i = 0; in[i] && j + 2 < size; i++) {
		if (i > 0 && i < digits && (digits - i) % 3 == 0)
			out[j++] = ',';
		out[j++] = in[i];
	}
	out[j] = '\0';
}

void unit_set_user(struct unit *u, const char *name, uint64_t samples)
{
	static const struct { const char *name; double ns; } times[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	memset(u, 0, sizeof *u);
	u->samples = samples;
	if (!name || !*name || strcmp(name, "samples") == 0)
		return;
	snprintf(u->event, sizeof u->event, "%s", name);
	for (size_t k = 0; k < sizeof times / sizeof times[0]; k++)
		if (strcmp(name, times[k].name) == 0) {
			u->ns = u->bare = true;
			u->scale = times[k].ns;
		}
	if (strcmp(name, "bytes") == 0)
		u->bytes = u->bare = true;
}

/* Nanoseconds as the largest unit that keeps a digit before the point. */
static void format_time(double ns, char *out, size_t size)
{
	const char *us = text_is_utf8() ? "\u00b5s" : "us";
	if (ns >= 1e9)
		snprintf(out, size, "%.2f s", ns / 1e9);
	else if (ns >= 1e6)
		snprintf(out, size, "%.1f ms", ns / 1e6);
	else if (ns >= 1e3)
		snprintf(out, size, "%.1f %s", ns / 1e3, us);
	else
		snprintf(out, size, "%.0f ns", ns);
}

static void format_count(double w, char *out, size_t size)
{
	char digits[64];
	if (w == floor(w) && w < 1e19)
		snprintf(digits, sizeof digits, "%.0f", w);
	else
		snprintf(digits, sizeof digits, "%.2f", w);
	unit_group(digits, out, size);
}

/* Bytes in SI units, as memory profilers show them. */
static void format_bytes(double b, char *out, size_t size)
{
	static const char *const unit[] = { "B", "kB", "MB", "GB", "TB", "PB" };
	int k = 0;
	while (b >= 1000 && k < 5) {
		b /= 1000;
		k++;
	}
	snprintf(out, size, k ? "%.1f %s" : "%.0f %s", b, unit[k]);
}

void unit_amount(const struct unit *u, double w, char *out, size_t size)
{
	char num[64];
	const char *label = u && u->bare ? "" : u ? u->event : "", *sp = label[0] ? " " : "";
	if (u && u->event[0] && u->bytes) {
		format_bytes(w, num, sizeof num);
		snprintf(out, size, "%s%s%s", num, sp, label);
	} else if (u && u->event[0] && u->ns) {
		format_time(w * (u->scale > 0 ? u->scale : 1), num, sizeof num);
		snprintf(out, size, "%s%s%s", num, sp, label);
	} else if (u && u->event[0]) {
		format_count(w, num, sizeof num);
		snprintf(out, size, "%s %s", num, u->event);
	} else {
		format_count(w, num, sizeof num);
		snprintf(out, size, "%s sample%s", num, w == 1 ? "" : "s");
	}
}

void unit_total(const struct unit *u, double w, const char *sep, char *out, size_t size)
{
	char amount[96], num[64], digits[32];
	unit_amount(u, w, amount, sizeof amount);
	if (!u || !u->event[0] || !u->samples) {
		snprintf(out, size, "%s", amount);
		return;
	}
	snprintf(digits, sizeof digits, "%" PRIu64, u->samples);
	unit_group(digits, num, sizeof num);
	snprintf(out, size, "%s sample%s%s%s", num, u->samples == 1 ? "" : "s", sep, amount);
}

void unit_number_short(const struct unit *u, double w, char *out, size_t size)
{
	static const char sfx[] = "kMGTPE";
	if (u && u->event[0] && u->bytes) {
		format_bytes(w, out, size);
		return;
	}
	if (u && u->event[0] && u->ns) {
		format_time(w * (u->scale > 0 ? u->scale : 1), out, size);
		return;
	}
	if (w < 10000) {
		format_count(w, out, size);
		return;
	}
	int k = -1;
	while (w >= 1000 && k < 5) {
		w /= 1000;
		k++;
	}
	snprintf(out, size, "%.1f %c", w, sfx[k]);
}

void unit_short(const struct unit *u, double w, char *out, size_t size)
{
	static const char sfx[] = "kMGTPE";
	if ((u && u->event[0] && (u->ns || u->bytes)) || w < 10000) {
		unit_amount(u, w, out, size);       /* short already */
		return;
	}
	int k = -1;
	while (w >= 1000 && k < 5) {
		w /= 1000;
		k++;
	}
	const char *label = u && u->event[0] ? (u->bare ? "" : u->event) : "samples";
	snprintf(out, size, "%.1f %c%s%s", w, sfx[k], label[0] ? " " : "", label);
}
