/* Unit tests of unit.c: amounts of weight in the event's unit, each
 * expected string worked out by hand. */
#include "config.h"

#include <string.h>
#include "tap.h"
#include "text.h"
#include "unit.h"

int main(void)
{
	struct unit u;
	char out[128];

	text_init(true);
	unit_set(&u, NULL, 0);
	unit_amount(&u, 1, out, sizeof out);
	is_str(out, "1 sample", "no event: one sample");
	unit_amount(&u, 1234567, out, sizeof out);
	is_str(out, "1,234,567 samples", "no event: samples, grouped by thousands");
	unit_amount(NULL, 12, out, sizeof out);
	is_str(out, "12 samples", "no unit at all: samples");

	unit_set(&u, "cpu-clock:ppp", 4621);
	is_str(u.event, "cpu-clock", "the event's modifiers are dropped");
	ok(u.ns, "cpu-clock counts nanoseconds");
	unit_amount(&u, 1155250000, out, sizeof out);
	is_str(out, "1.16 s cpu-clock", "1,155,250,000 ns: 1.16 s");
	unit_amount(&u, 250000, out, sizeof out);
	is_str(out, "250.0 \u00b5s cpu-clock", "250,000 ns: 250.0 us");
	unit_amount(&u, 2500000, out, sizeof out);
	is_str(out, "2.5 ms cpu-clock", "2,500,000 ns: 2.5 ms");
	unit_amount(&u, 999, out, sizeof out);
	is_str(out, "999 ns cpu-clock", "under a microsecond: ns");
	unit_total(&u, 1155250000, " \u00b7 ", out, sizeof out);
	is_str(out, "4,621 samples \u00b7 1.16 s cpu-clock", "the total: samples and time");

	unit_set(&u, "task-clock", 0);
	ok(u.ns, "task-clock counts nanoseconds");
	unit_total(&u, 3e9, " | ", out, sizeof out);
	is_str(out, "3.00 s task-clock", "no sample count: the time alone");

	unit_set(&u, "cycles:u", 1);
	ok(!u.ns, "cycles are not time");
	unit_amount(&u, 98765432, out, sizeof out);
	is_str(out, "98,765,432 cycles", "cycles, grouped");
	unit_total(&u, 5, " | ", out, sizeof out);
	is_str(out, "1 sample | 5 cycles", "one sample");

	unit_set_typed(&u, "alloc_space", "bytes", 49);
	unit_amount(&u, 255800000, out, sizeof out);
	is_str(out, "255.8 MB alloc_space", "pprof bytes: 255,800,000 B is 255.8 MB");
	unit_amount(&u, 999, out, sizeof out);
	is_str(out, "999 B alloc_space", "under a kilobyte: B");
	unit_set_typed(&u, "cpu", "nanoseconds", 41);
	unit_total(&u, 1210000000, " | ", out, sizeof out);
	is_str(out, "41 samples | 1.21 s cpu", "pprof nanoseconds read as time");
	unit_set_typed(&u, "samples", "count", 41);
	unit_amount(&u, 41, out, sizeof out);
	is_str(out, "41 samples", "pprof samples/count: plain samples");

	text_init(false);
	unit_set(&u, "cpu-clock", 0);
	unit_amount(&u, 1500, out, sizeof out);
	is_str(out, "1.5 us cpu-clock", "outside UTF-8: us");
	return done_testing();
}
