#include "config.h"
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tree.h"
#include "tap.h"
#include "treeutil.h"

/* Node names in preorder, space separated. */
static char *preorder(const struct tree *t)
{
	static char buf[4096];
	buf[0] = 0;
	for (tree_idx i = 0; i < tree_size(t); i++) {
		if (i)
			strcat(buf, " ");
		strcat(buf, tree_name(t, i));
	}
	return buf;
}

/* Independent oracle for folded output: keys sorted with memcmp. */
struct kv { char key[64]; uint64_t n; };
static int cmp_kv(const void *a, const void *b)
{
	return strcmp(((const struct kv *)a)->key, ((const struct kv *)b)->key);
}


/* ---- tree_add_stacks: the same tree as one stack at a time ------------ */

static uint64_t bseed = 0x9E3779B97F4A7C15ULL;
static uint64_t brand(void)
{
	bseed ^= bseed << 13;
	bseed ^= bseed >> 7;
	bseed ^= bseed << 17;
	return bseed;
}

/* Names that start one another and hold bytes around ';' in value, so that
 * sibling order has its hard cases too. */
static const char *const bnames[] = { "a", "ab", "a b", "a:", "b", "main", "f", "f(int)", "g", "x", "" };
#define NBNAMES (sizeof bnames / sizeof bnames[0])
/* Names whose byte order is the tree's name order whatever their counts
 * (none starts another then holds a byte below ';'). */
static const char *const plain_names[] = { "a", "ab", "b", "main", "f", "f_int", "g", "x" };
static const char *const *bvocab = bnames;
static size_t nbvocab = NBNAMES;

struct bstack {
	size_t keep, n;
	struct tree_frame f[40];
	struct tree_dec c;
};

/* Random stacks; stack i keeps a random part of stack i - 1's frames (the
 * reader's `keep`), a few counts are fractions. */
static void bstacks(struct bstack *s, size_t n, size_t depth)
{
	size_t prev = 0;
	for (size_t i = 0; i < n; i++) {
		size_t d = 1 + brand() % depth;
		size_t keep = i && prev ? brand() % (prev + 1) : 0;
		if (keep > d)
			keep = d;
		s[i].keep = keep;
		s[i].n = d - keep;
		for (size_t k = 0; k < s[i].n; k++) {
			const char *nm = bvocab[brand() % nbvocab];
			s[i].f[k] = (struct tree_frame){ nm, strlen(nm) };
		}
		if (brand() % 16 == 0)
			s[i].c = (struct tree_dec){ 1 + brand() % 1000, 1 + (unsigned)(brand() % 3), false, false };
		else
			s[i].c = (struct tree_dec){ 1 + brand() % 100, 0, false, false };
		prev = d;
	}
}

/* Every node of a and b alike: name, parent, end, depth, counts. */
static bool same_nodes(const struct tree *a, const struct tree *b)
{
	if (tree_size(a) != tree_size(b) || a->decimals != b->decimals)
		return false;
	for (tree_idx i = 0; i < tree_size(a); i++) {
		const struct tree_node *x = tree_node(a, i), *y = tree_node(b, i);
		if (strcmp(tree_name(a, i), tree_name(b, i)) != 0 || x->parent != y->parent ||
		    x->end != y->end || x->depth != y->depth || x->self.u != y->self.u ||
		    x->total.u != y->total.u || x->off.u != y->off.u)
			return false;
	}
	return true;
}

static void batch_tests(void)
{
	enum tree_order orders[] = { TREE_ORDER_NAME, TREE_ORDER_WEIGHT, TREE_ORDER_INPUT };
	const char *oname[] = { "name", "weight", "input" };
	static struct bstack s[2000];
	for (int round = 0; round < 12; round++) {
		size_t n = 200 + brand() % 1800, depth = 2 + brand() % 30;
		bstacks(s, n, depth);
		for (int o = 0; o < 3; o++) {
			struct tree one, bat;
			tree_init(&one);
			tree_init(&bat);
			/* The first stacks one at a time in both, so that the
			 * batches start with a hashed tree (tree_batches). */
			size_t i = 0;
			for (; i < n && !tree_batches(&one); i++)
				tree_add_stack_tail_dec(&one, s[i].keep, s[i].f, s[i].n, s[i].c);
			size_t first = i;
			for (i = 0; i < first; i++)
				tree_add_stack_tail_dec(&bat, s[i].keep, s[i].f, s[i].n, s[i].c);
			for (; i < n; i++)
				tree_add_stack_tail_dec(&one, s[i].keep, s[i].f, s[i].n, s[i].c);
			struct tree_stack b[37];
			static strtab_id ids[37][40];
			for (i = first; i < n;) {
				size_t k = 0, want = 1 + brand() % 37;
				for (; k < want && i < n; k++, i++) {
					for (size_t f = 0; f < s[i].n; f++)
						ids[k][f] = tree_intern(&bat, s[i].f[f].s, s[i].f[f].len);
					b[k] = (struct tree_stack){ s[i].keep, ids[k], s[i].n, s[i].c };
				}
				tree_add_stacks(&bat, b, k);
			}
			bool batched = first < n;
			tree_finalize(&one, orders[o]);
			tree_finalize(&bat, orders[o]);
			ok(same_nodes(&one, &bat) && one.stacks == bat.stacks && batched,
			   "tree_add_stacks, round %d, %zu stacks, %s order: the tree of one stack at a time",
			   round, n, oname[o]);
			tree_free(&one);
			tree_free(&bat);
		}
	}
}

/* ---- tree_add_stacks_new: stacks sorted by their names' ids ---------- */

static strtab_id sids[2000][40];
static size_t sn[2000];

static int cmp_ids(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	for (size_t k = 0; k < sn[i] && k < sn[j]; k++)
		if (sids[i][k] != sids[j][k])
			return sids[i][k] < sids[j][k] ? -1 : 1;
	return (sn[i] > sn[j]) - (sn[i] < sn[j]);
}

/* By the names' bytes, frame by frame (a name before the longer ones it
 * starts; a stack before those it starts), as pprof adds its stacks. */
static struct tree *sorting_in;
static int bytes_cmp(const char *a, size_t la, const char *b, size_t lb)
{
	int c = memcmp(a, b, la < lb ? la : lb);
	return c ? c : (la > lb) - (la < lb);
}
static int cmp_names(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	const struct strtab *st = &sorting_in->names;
	for (size_t k = 0; k < sn[i] && k < sn[j]; k++) {
		strtab_id x = sids[i][k], y = sids[j][k];
		if (x != y)
			return bytes_cmp(strtab_str(st, x), strtab_len(st, x), strtab_str(st, y), strtab_len(st, y));
	}
	return (sn[i] > sn[j]) - (sn[i] < sn[j]);
}

/* Whether some node of t (finalized in name order) has two children
 * next to each other out of their names' byte order: the case where
 * stacks sorted by bytes do not come in the tree's name order. */
static bool bytes_not_name_order(const struct tree *t)
{
	for (tree_idx i = 0; i < tree_size(t); i++) {
		const struct tree_node *x = tree_node(t, i);
		tree_idx c = i + 1, prev = TREE_NONE;
		for (; c < x->end; prev = c, c = tree_node(t, c)->end)
			if (prev != TREE_NONE && bytes_cmp(tree_name(t, prev), strlen(tree_name(t, prev)),
			                                   tree_name(t, c), strlen(tree_name(t, c))) > 0)
				return true;
	}
	return false;
}

/* The test's own tree_name_order of t's names: ranks by bytes_cmp, and
 * whether a name starts the one ranked next. */
static strtab_id rank_by[4096];
static uint32_t rank_of[4096];
static uint8_t rank_pfx[4096];
static int cmp_id_bytes(const void *a, const void *b)
{
	const struct strtab *st = &sorting_in->names;
	strtab_id x = *(const strtab_id *)a, y = *(const strtab_id *)b;
	return bytes_cmp(strtab_str(st, x), strtab_len(st, x), strtab_str(st, y), strtab_len(st, y));
}
static struct tree_name_order test_name_order(struct tree *t)
{
	size_t n = strtab_count(&t->names);
	if (n > 4096)
		abort();
	for (size_t i = 0; i < n; i++)
		rank_by[i] = (strtab_id)i;
	sorting_in = t;
	qsort(rank_by, n, sizeof rank_by[0], cmp_id_bytes);
	for (size_t i = 0; i < n; i++) {
		const char *a = strtab_str(&t->names, rank_by[i]);
		rank_of[rank_by[i]] = (uint32_t)i;
		rank_pfx[rank_by[i]] = i + 1 < n && strncmp(a, strtab_str(&t->names, rank_by[i + 1]), strlen(a)) == 0;
	}
	return (struct tree_name_order){ rank_of, rank_pfx, n };
}

static void new_tests(void)
{
	enum tree_order orders[] = { TREE_ORDER_NAME, TREE_ORDER_WEIGHT };
	static struct bstack s[2000];
	static struct tree_frame whole[2000][40];
	static size_t order[2000];
	int fast = 0, sorted_after = 0;
	for (int round = 0; round < 24; round++) {
		/* stacks sorted by ids (rounds 0-7), by names (8-23; from
		 * 16 on, names whose byte order is the name order) */
		bool by_names = round >= 8;
		bvocab = round >= 16 ? plain_names : bnames;
		nbvocab = round >= 16 ? sizeof plain_names / sizeof plain_names[0] : NBNAMES;
		size_t n = 200 + brand() % 1800, depth = 2 + brand() % 30, extra = round % 2 ? brand() % 50 : 0;
		bstacks(s, n, depth);
		for (int ow = 0; ow < 4; ow++) {
			/* by names' bytes (w 0) or with their ranks (w 1) */
			int o = ow / 2, w = ow % 2;
			struct tree one, srt;
			tree_init(&one);
			tree_init(&srt);
			/* whole stacks, one at a time into one, their names'
			 * ids in srt */
			for (size_t i = 0; i < n; i++) {
				sn[i] = s[i].keep + s[i].n;
				if (i)
					memcpy(whole[i], whole[i - 1], s[i].keep * sizeof whole[i][0]);
				memcpy(whole[i] + s[i].keep, s[i].f, s[i].n * sizeof s[i].f[0]);
				tree_add_stack_dec(&one, whole[i], sn[i], s[i].c);
				for (size_t k = 0; k < sn[i]; k++)
					sids[i][k] = tree_intern(&srt, whole[i][k].s, whole[i][k].len);
				order[i] = i;
			}
			struct tree_name_order by = test_name_order(&srt);
			sorting_in = &srt;
			qsort(order, n, sizeof order[0], by_names ? cmp_names : cmp_ids);
			struct tree_stack b[37];
			for (size_t i = 0; i < n;) {
				size_t k = 0, want = 1 + brand() % 37;
				for (; k < want && i < n; k++, i++) {
					size_t x = order[i], keep = 0;
					if (i) {
						size_t y = order[i - 1];
						while (keep < sn[x] && keep < sn[y] && sids[x][keep] == sids[y][keep])
							keep++;
					}
					b[k] = (struct tree_stack){ keep, sids[x] + keep, sn[x] - keep, s[x].c };
				}
				tree_add_stacks_new(&srt, b, k, w ? &by : NULL);
			}
			/* in the tree's name order: left unsorted, as finalize
			 * then neither sorts nor moves its nodes */
			bool left = !srt.b.hashed;
			/* then stacks looked up (the child hash made then) */
			for (size_t i = 0; i < extra; i++) {
				size_t x = brand() % n;
				tree_add_stack(&one, whole[x], sn[x], 3);
				tree_add_stack(&srt, whole[x], sn[x], 3);
			}
			tree_finalize(&one, orders[o]);
			tree_finalize(&srt, orders[o]);
			ok(same_nodes(&one, &srt) && one.stacks == srt.stacks,
			   "tree_add_stacks_new, round %d, %zu stacks sorted by %s (%zu looked up after), %s order, "
			   "%s: the tree of one stack at a time", round, n, by_names ? "names" : "ids", extra,
			   o ? "weight" : "name", w ? "ranks" : "bytes");
			if (by_names && o == 0) {
				bool want = !bytes_not_name_order(&one);
				ok(left == want, "tree_add_stacks_new, round %d, %s: stacks sorted by names %s the tree's "
				   "name order (%s)", round, w ? "ranks" : "bytes", want ? "in" : "out of",
				   left ? "left unsorted" : "sorted");
				fast += left && !w;
			}
			sorted_after += !by_names && left;
			tree_free(&one);
			tree_free(&srt);
		}
	}
	bvocab = bnames;
	nbvocab = NBNAMES;
	ok(fast >= 8 && sorted_after == 0, "tree_add_stacks_new: stacks sorted by names in name order left "
	   "unsorted in %d of 16 rounds (at least the 8 with plain names); by ids: %d", fast, sorted_after);
}

/* ---- tree_try_reserve ------------------------------------------------ */

/* This process's address space in KiB (VmSize), 0 when unknown. */
static long vm_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kib = 0;
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "VmSize: %ld", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

static void reserve_tests(void)
{
	struct tree t;
	char name[16];
	/* Room for 200000 more nodes: 100000 stacks f<n>;g (sorted, each
	 * two new nodes) fill it without moving the array. */
	tree_init(&t);
	ok(tree_try_reserve(&t, 200000), "room for 200000 more nodes");
	ok(t.cap == 200001, "  ... exactly: the root and 200000 (cap %zu)", t.cap);
	const struct tree_node *at = t.nodes;
	for (int i = 0; i < 100000; i++) {
		snprintf(name, sizeof name, "f%06d", i);
		struct tree_frame fr[2] = { { name, 7 }, { "g", 1 } };
		tree_add_stack(&t, fr, 2, 1);
	}
	ok(t.nodes == at && t.cap == 200001, "200000 nodes added: the array neither moved nor grew");
	ok(tree_try_reserve(&t, 0) && t.cap == 200001 && t.nodes == at, "a full array, 0 more nodes: nothing to do");
	ok(tree_try_reserve(&t, 10) && t.cap == 200011 && t.n == 200001, "  ... 10 more: it grows to 200011");
	tree_free(&t);
	tree_init(&t);
	ok(tree_try_reserve(&t, 5000), "room for 5000 nodes");
	add(&t, "a;b", 1);
	add(&t, "a;c", 2);
	tree_finalize(&t, TREE_ORDER_NAME);
	ok(t.cap == 4, "finalize gives the slack back (cap %zu for 4 nodes)", t.cap);
	is_folded(&t, "a;b 1\na;c 2\n", "  ... and the tree is whole");
	tree_free(&t);

	/* Refused (an address-space limit 512 MiB above what this process
	 * has, 4 GB asked): false, the tree as it was and still growing. In
	 * a child, as the limit stays. */
	long vm = vm_kib();
	fflush(stdout);
	pid_t pid = vm > 0 ? fork() : -1;
	if (pid == 0) {
		struct rlimit rl = { (rlim_t)(vm + 512 * 1024) * 1024, (rlim_t)(vm + 512 * 1024) * 1024 };
		if (setrlimit(RLIMIT_AS, &rl) != 0)
			_exit(3);
		tree_init(&t);
		add(&t, "a;b", 1);
		struct tree_node *before = t.nodes;
		size_t cap = t.cap;
		if (tree_try_reserve(&t, (size_t)100 << 20))
			_exit(4);
		if (t.nodes != before || t.cap != cap)
			_exit(5);
		add(&t, "a;c", 2);
		tree_finalize(&t, TREE_ORDER_NAME);
		_exit(tree_size(&t) == 4 && tree_total_d(&t, 0) == 3 ? 0 : 6);
	}
	int st = 0;
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) == 3)
		ok(1, "a refused reservation # SKIP no child under an address-space limit here");
	else
		ok(WEXITSTATUS(st) == 0, "4 GB refused under an address-space limit: false, the tree unchanged and "
		   "still growing (child's status %d: 4 granted, 5 changed, 6 wrong tree)", WEXITSTATUS(st));
}

int main(void)
{
	struct tree t;

	/* Shape, totals, offsets, preorder ranges. */
	tree_init(&t);
	add(&t, "a;b", 1);
	add(&t, "d;e", 4);
	add(&t, "a;c", 2);
	add(&t, "a", 3);
	tree_finalize(&t, TREE_ORDER_NAME);
	is_str(preorder(&t), "all a b c d e", "preorder with siblings by name");
	is_int(tree_total_d(&t, 0), 10, "root total");
	is_int(tree_total_d(&t, 1), 6, "a total = self 3 + 1 + 2");
	is_int(tree_self_d(&t, 1), 3, "a self");
	is_int(tree_end(&t, 1), 4, "a's subtree is [1,4)");
	is_int(tree_end(&t, 0), 6, "root covers all");
	is_int(tree_parent(&t, 5), 4, "e's parent is d");
	is_int(tree_depth(&t, 5), 2, "e at depth 2");
	is_int(tree_off_d(&t, 3), 1, "c starts after b");
	is_int(tree_off_d(&t, 4), 6, "d starts after a");
	is_int(tree_first_child(&t, 1), 2, "first child of a");
	is_int(tree_next_sibling(&t, 2), 3, "next sibling of b is c");
	is_int(tree_next_sibling(&t, 3), TREE_NONE, "c is a's last child");
	is_int(tree_next_sibling(&t, 1), 4, "next sibling of a is d");
	ok(tree_contains(&t, 1, 3) && !tree_contains(&t, 1, 4), "tree_contains by range");
	is_folded(&t, "a 3\na;b 1\na;c 2\nd;e 4\n", "folded output");
	tree_free(&t);

	/* Names that are prefixes of each other (';' is 0x3b, '!' 0x21). */
	tree_init(&t);
	add(&t, "a;b", 1);
	add(&t, "a!;x", 2);
	add(&t, "a", 3);
	tree_finalize(&t, TREE_ORDER_NAME);
	is_folded(&t, "a 3\na!;x 2\na;b 1\n", "prefix names: byte order of keys");
	is_str(preorder(&t), "all a b a! x", "a has own samples: it sorts before a!");
	tree_free(&t);
	tree_init(&t);
	add(&t, "a;b", 1);
	add(&t, "a!;x", 2);
	tree_finalize(&t, TREE_ORDER_NAME);
	is_str(preorder(&t), "all a! x a b", "a without own samples sorts as \"a;\", after a!");
	tree_free(&t);

	/* Orders. */
	tree_init(&t);
	add(&t, "x", 1);
	add(&t, "y", 5);
	add(&t, "z", 3);
	tree_finalize(&t, TREE_ORDER_WEIGHT);
	is_str(preorder(&t), "all y z x", "weight order: heaviest first");
	is_folded(&t, "x 1\ny 5\nz 3\n", "folded output stays byte-sorted in any order");
	tree_free(&t);
	tree_init(&t);
	add(&t, "z", 1);
	add(&t, "a", 1);
	add(&t, "z;q", 1);
	tree_finalize(&t, TREE_ORDER_INPUT);
	is_str(preorder(&t), "all z q a", "input order: first appearance");
	tree_free(&t);

	/* Fractions make the tree decimal, integers already added stay. */
	tree_init(&t);
	add(&t, "a", 1);
	struct tree_frame fa = { "a", 1 };
	tree_add_stack_dec(&t, &fa, 1, (struct tree_dec){ 5, 1, false, false });
	tree_add_stack_dec(&t, &fa, 1, (struct tree_dec){ 25, 2, false, false });
	tree_finalize(&t, TREE_ORDER_NAME);
	ok(t.frac && t.decimals == 2, "a fraction makes the tree decimal: 2 decimals for 0.25");
	is_folded(&t, "a 1.75\n", "fractional counts are kept and summed");
	tree_free(&t);

	/* Integers beyond 2^53 stay exact beside fractions (a double would
	 * make 9007199254740993 ...992), and sums of decimals are exact (in
	 * doubles 0.1 + 0.2 is 0.30000000000000004). */
	tree_init(&t);
	add(&t, "a", 9007199254740993ull);
	add(&t, "b", 0);
	tree_add_stack_dec(&t, (struct tree_frame[]){ { "c", 1 } }, 1, (struct tree_dec){ 1, 1, false, false });
	tree_add_stack_dec(&t, (struct tree_frame[]){ { "c", 1 } }, 1, (struct tree_dec){ 2, 1, false, false });
	tree_finalize(&t, TREE_ORDER_NAME);
	is_folded(&t, "a 9007199254740993\nc 0.3\n", "2^53 + 1 beside 0.1 + 0.2");
	tree_free(&t);

	/* 2^64 - 1 beside a fraction: the sum has no room for a decimal, so
	 * the fraction is rounded (and counted), the integer kept. */
	tree_init(&t);
	add(&t, "a", UINT64_MAX - 1);
	tree_add_stack_dec(&t, (struct tree_frame[]){ { "b", 1 } }, 1, (struct tree_dec){ 5, 1, false, false });
	tree_finalize(&t, TREE_ORDER_NAME);
	is_folded(&t, "a 18446744073709551614\nb 1\n", "no room for decimals: 0.5 rounds to 1");
	ok(t.rounded == 1 && !t.frac, "one count rounded, the tree stays integer");
	tree_free(&t);
	/* The other order: 0.5 first (one decimal), then an integer that
	 * does not fit in tenths saturates, as any sum beyond 64 bits. */
	tree_init(&t);
	tree_add_stack_dec(&t, (struct tree_frame[]){ { "b", 1 } }, 1, (struct tree_dec){ 5, 1, false, false });
	add(&t, "a", 4000000000000000000ull);
	tree_finalize(&t, TREE_ORDER_NAME);
	ok(t.saturated, "4e18 in tenths is beyond 64 bits: saturated");
	tree_free(&t);

	/* tree_dec_parse, worked by hand. */
	{
		static const struct { const char *s; uint64_t u; unsigned d; bool sat, rnd; } cases[] = {
			{ "12", 12, 0, false, false },
			{ "1.50", 15, 1, false, false },
			{ "0.000", 0, 0, false, false },
			{ "007.25", 725, 2, false, false },
			{ "1.5e3", 1500, 0, false, false },
			{ "25E-4", 25, 4, false, false },
			{ "18446744073709551615", UINT64_MAX, 0, false, false },
			{ "18446744073709551616", UINT64_MAX, 0, true, false },
			{ "1e20", UINT64_MAX, 0, true, false },
			/* 19 decimals: the 19th rounds half up */
			{ "0.1234567890123456785", 123456789012345679ull, 18, false, true },
			/* 5 integer digits + 18 decimals: beyond 19 digits, so 14 */
			{ "12345.123456789012345678", 1234512345678901235ull, 14, false, true },
			/* all digits below the 18th decimal: zero, rounded */
			{ "0.0000000000000000001", 0, 0, false, true },
			/* a carry that ends in zeros: 0.9999...(19 nines) -> 1 */
			{ "0.9999999999999999999", 1, 0, false, true },
		};
		for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
			struct tree_dec d;
			bool okp = tree_dec_parse(cases[k].s, strlen(cases[k].s), &d);
			ok(okp && d.units == cases[k].u && d.decimals == cases[k].d &&
			   d.saturated == cases[k].sat && d.rounded == cases[k].rnd,
			   "tree_dec_parse(%s): %" PRIu64 " / 10^%u", cases[k].s, d.units, d.decimals);
		}
		static const char *bad[] = { "", ".5", "1e", "1e+", "-1", "1.2.3", "1 ", "0x10" };
		for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
			struct tree_dec d;
			ok(!tree_dec_parse(bad[k], strlen(bad[k]), &d), "tree_dec_parse refuses \"%s\"", bad[k]);
		}
		struct tree_dec d = tree_dec_from_double(0.1 + 0.2);
		ok(d.units == 3 && d.decimals == 1, "0.1 + 0.2 in doubles is 0.3 to 9 decimals");
	}

	/* Saturation instead of wrap-around. */
	tree_init(&t);
	add(&t, "a", UINT64_MAX);
	add(&t, "a", 1);
	add(&t, "b", 2);
	tree_finalize(&t, TREE_ORDER_NAME);
	ok(t.saturated, "overflow is flagged");
	ok(t.nodes[1].self.u == UINT64_MAX && t.nodes[0].total.u == UINT64_MAX, "counts clamp at UINT64_MAX");
	tree_free(&t);

	/* Empty stack: the root's own samples, written as an empty key. */
	tree_init(&t);
	tree_add_stack(&t, NULL, 0, 7);
	add(&t, "a", 1);
	tree_finalize(&t, TREE_ORDER_NAME);
	is_folded(&t, " 7\na 1\n", "empty stack counts at the root");
	is_int(tree_total_d(&t, 0), 8, "and in the total");
	tree_free(&t);

	/* Flame chart: only adjacent frames merge, and a frame sits at the time
	 * it was first seen. Times: a;b at 0, a at 1, a;b at 2 (new b),
	 * c at 3 (2 samples), a;b at 5 (new a and b); 8 in all. */
	tree_init(&t);
	t.chart = true;
	add(&t, "a;b", 1);
	add(&t, "a", 1);
	add(&t, "a;b", 1);
	add(&t, "c", 2);
	add(&t, "a;b", 3);
	tree_finalize(&t, TREE_ORDER_INPUT);
	is_str(preorder(&t), "all a b b c a b", "chart: non-adjacent repeats stay apart");
	{
		char offs[128] = "";
		for (tree_idx i = 1; i < tree_size(&t); i++) {
			char one[16];
			snprintf(one, sizeof one, "%s%.0f", i > 1 ? " " : "", tree_off_d(&t, i));
			strcat(offs, one);
		}
		is_str(offs, "0 0 2 3 5 5", "chart: offsets are times of first appearance");
	}
	is_int(tree_total_d(&t, 1), 3, "chart: first a holds 3 samples (b, own, b)");
	tree_free(&t);

	/* Merging equals adding everything to one tree, order included. */
	{
		struct tree a, b;
		tree_init(&a);
		tree_init(&b);
		tree_init(&t);
		add(&a, "z;y", 1);
		add(&a, "m", 2);
		add(&b, "m", 3);
		add(&b, "q;r", 4);
		add(&b, "z;x", 5);
		add(&t, "z;y", 1);
		add(&t, "m", 2);
		add(&t, "m", 3);
		add(&t, "q;r", 4);
		add(&t, "z;x", 5);
		tree_merge(&a, &b);
		tree_finalize(&a, TREE_ORDER_INPUT);
		tree_finalize(&t, TREE_ORDER_INPUT);
		char want[256];
		snprintf(want, sizeof want, "%s", preorder(&t));
		is_str(preorder(&a), want, "merge keeps first-appearance order");
		is_str(preorder(&a), "all z y x m q r", "  ... which is z, m, q");
		is_int(tree_self_d(&a, 4), 5, "merged counts add up (m: 2 + 3)");
		is_int((long long)a.stacks, 5, "stack counts add up");
		is_folded(&a, "m 5\nq;r 4\nz;x 5\nz;y 1\n", "merged folded output");
		tree_free(&a);
		tree_free(&b);
		tree_free(&t);
	}

	/* A merge creates whole new subtrees without hashing their children;
	 * stacks added after it (and a second merge) must still find them:
	 * q has three children from b, then one more and a repeat from c and
	 * from direct adds. Worked out by hand: q;r 4+1 = 5, q;s 6 + 2 = 8,
	 * q;t 7, q;u 3, z;x 5. */
	{
		struct tree a, b, c;
		tree_init(&a);
		tree_init(&b);
		tree_init(&c);
		add(&a, "z;x", 5);
		add(&b, "q;r", 4);
		add(&b, "q;s", 6);
		add(&b, "q;t", 7);
		add(&c, "q;s", 2);
		add(&c, "q;u", 3);
		tree_merge(&a, &b);
		add(&a, "q;r", 1);
		tree_merge(&a, &c);
		tree_finalize(&a, TREE_ORDER_NAME);
		is_int((long long)tree_size(&a), 8, "merge then add: no duplicate nodes (all q r s t u z x)");
		is_folded(&a, "q;r 5\nq;s 8\nq;t 7\nq;u 3\nz;x 5\n", "merge then add: counts land on the merged nodes");
		tree_free(&a);
		tree_free(&b);
		tree_free(&c);
	}

	/* A 100,000-frame stack: nothing recurses. */
	tree_init(&t);
	{
		size_t n = 100000;
		struct tree_frame *f = malloc(n * sizeof *f);
		char (*names)[12] = malloc(n * sizeof *names);
		for (size_t i = 0; i < n; i++) {
			int l = snprintf(names[i], sizeof names[i], "f%zu", i % 3);
			f[i] = (struct tree_frame){ names[i], (size_t)l };
		}
		tree_add_stack(&t, f, n, 1);
		tree_add_stack(&t, f, n / 2, 1);
		tree_finalize(&t, TREE_ORDER_NAME);
		is_int((long long)tree_size(&t), (long long)n + 1, "deep stack: one node per frame");
		is_int(tree_depth(&t, (tree_idx)n), (long long)n, "deep stack: leaf depth");
		is_int(tree_self_d(&t, (tree_idx)(n / 2)), 1, "deep stack: the half-depth stack ends mid-way");
		is_int(tree_total_d(&t, 1), 2, "deep stack: totals");
		free(f);
		free(names);
	}
	tree_free(&t);

	/* Random stacks over an alphabet with prefix-prone names, checked
	 * against an oracle that sorts the keys. */
	{
		static const char *alpha[] = { "a", "a!", "a ", "ab", "b", "a!!", "", "[x]" };
		struct kv *kv = calloc(4000, sizeof *kv);
		size_t nkv = 0;
		uint64_t seed = 12345;
		tree_init(&t);
		for (int i = 0; i < 4000; i++) {
			char key[64] = "";
			struct tree_frame f[5];
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			int depth = 1 + (int)((seed >> 33) % 4);
			for (int d = 0; d < depth; d++) {
				seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
				const char *nm = alpha[(seed >> 35) % 8];
				f[d] = (struct tree_frame){ nm, strlen(nm) };
				if (d)
					strcat(key, ";");
				strcat(key, nm);
			}
			uint64_t c = 1 + (seed >> 60);
			tree_add_stack(&t, f, (size_t)depth, c);
			size_t k;
			for (k = 0; k < nkv && strcmp(kv[k].key, key) != 0; k++)
				;
			if (k == nkv)
				strcpy(kv[nkv++].key, key);
			kv[k].n += c;
		}
		tree_finalize(&t, TREE_ORDER_NAME);
		qsort(kv, nkv, sizeof *kv, cmp_kv);
		char *want = NULL;
		size_t wl = 0;
		FILE *w = open_memstream(&want, &wl);
		for (size_t k = 0; k < nkv; k++)
			fprintf(w, "%s %llu\n", kv[k].key, (unsigned long long)kv[k].n);
		fclose(w);
		char *got = folded(&t);
		ok(strcmp(got, want) == 0, "random stacks: folded output equals sorted keys (%zu keys)", nkv);
		free(got);
		free(want);
		free(kv);
		tree_free(&t);
	}
	/* Names by id (tree_add_stack_tail_ids), mixed with names by bytes;
	 * worked by hand: a;b 2+1, a;c 3, b 5, b;a 1. */
	{
		tree_init(&t);
		strtab_id a = tree_intern(&t, "a", 1), b = tree_intern(&t, "b", 1);
		strtab_id c = tree_intern(&t, "c", 1);
		ok(tree_intern(&t, "a", 1) == a && a != b && b != c, "tree_intern: one id per name");
		tree_add_stack_tail_ids(&t, 0, (strtab_id[]){ a, b }, 2, 2);
		tree_add_stack_tail_ids(&t, 1, (strtab_id[]){ c }, 1, 3);
		add(&t, "a;b", 1);
		tree_add_stack_tail_ids(&t, 0, (strtab_id[]){ b }, 1, 5);
		tree_add_stack_tail_ids(&t, 1, (strtab_id[]){ a }, 1, 1);
		tree_finalize(&t, TREE_ORDER_NAME);
		char *got = folded(&t);
		is_str(got, "a;b 3\na;c 3\nb 5\nb;a 1\n", "stacks by id: folded output");
		free(got);
		tree_free(&t);
	}
	{
		/* A node array of 12 MB, its pages faulted in ahead as it fills
		 * (tree_add_stack on sorted stacks): 150000 stacks f<n>;g, one
		 * sample each, make 300001 nodes; f000000..f149999 and their g. */
		tree_init(&t);
		char name[16];
		int good = 1;
		for (int i = 0; i < 150000; i++) {
			snprintf(name, sizeof name, "f%06d", i);
			struct tree_frame fr[2] = { { name, 7 }, { "g", 1 } };
			tree_idx leaf = tree_add_stack(&t, fr, 2, 1);
			good &= leaf == (tree_idx)(2 * i + 2);
		}
		ok(good, "sorted stacks make nodes in order, each leaf the last");
		tree_finalize(&t, TREE_ORDER_NAME);
		is_int((long long)tree_size(&t), 300001, "300001 nodes");
		is_int(tree_total_d(&t, 0), 150000, "  ... and every sample");
		is_int(tree_end(&t, 2 * 149999 + 1), 300001, "  ... the last f's subtree ends the tree");
		tree_free(&t);
	}
	reserve_tests();
	batch_tests();
	new_tests();
	return done_testing();
}
