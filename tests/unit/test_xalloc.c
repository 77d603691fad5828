/* xgive_back: which pages of a range go back, and where the next call
 * starts, on an anonymous mapping whose given-back pages read as zeros. */
#include "config.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "tap.h"
#include "xalloc.h"

int main(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t page = pg > 0 ? (size_t)pg : 4096;
	unsigned char *m = mmap(NULL, 5 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		skip(6, "no anonymous mapping");
		return done_testing();
	}
	memset(m, 1, 5 * page);
	/* from inside page 0 to inside page 3: pages 1 and 2 are whole */
	const void *next = xgive_back(m + 1, m + 3 * page + 5);
	ok(next == m + 3 * page, "the next call starts where the whole pages end (page 3)");
#ifdef HAVE_MADVISE
	ok(m[page] == 0 && m[3 * page - 1] == 0, "pages 1 and 2 were given back (they read as zeros)");
#else
	skip(1, "no madvise: nothing is given back");
#endif
	ok(m[page - 1] == 1 && m[3 * page] == 1 && m[3 * page + 4] == 1,
	   "the partial pages at either end stay (page 0's last byte, page 3's first)");
	/* no whole page inside: nothing, and the start is returned */
	ok(xgive_back(m + 3 * page + 5, m + 4 * page - 1) == m + 3 * page + 5 && m[3 * page + 5] == 1,
	   "a range inside one page gives nothing back and returns its start");
	ok(xgive_back(m + 4 * page, m + 4 * page) == m + 4 * page, "an empty range returns its start");
	/* page-aligned ends: exactly the range */
	memset(m, 1, 5 * page);
	ok(xgive_back(m + 3 * page, m + 5 * page) == m + 5 * page
#ifdef HAVE_MADVISE
	           && m[3 * page] == 0 && m[5 * page - 1] == 0
#endif
	           && m[3 * page - 1] == 1,
	   "an aligned range gives back exactly its pages (3 and 4)");
	munmap(m, 5 * page);
	return done_testing();
}
