/* minisearch: a small, self-contained CPU workload with a recognisable call
 * structure, used to record tflame's example profile (see README).
 *
 * It generates a synthetic corpus, builds an inverted index over it, parses
 * and evaluates boolean queries (recursive descent parser, recursive
 * evaluator), ranks the hits (BM25-like scoring, recursive merge sort),
 * compresses the posting lists (varint + CRC-32) and prints a summary.
 *
 * Build with frame pointers so `perf record -g` sees every level (clang: gcc 12
 * leaves them out of leaf functions; see README):
 *   clang -std=c11 -O2 -g -fno-omit-frame-pointer -o minisearch minisearch.c -lm
 * Usage: minisearch [SCALE]   (SCALE 1 runs for about a second)
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

/* ---- utilities ------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static NOINLINE uint64_t rng_next(void)
{
	/* splitmix64 */
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fputs("minisearch: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

static NOINLINE void *vec_grow(void *p, size_t *cap, size_t elem, size_t need)
{
	size_t c = *cap ? *cap : 4;
	while (c < need)
		c *= 2;
	p = realloc(p, c * elem);
	if (!p) {
		fputs("minisearch: out of memory\n", stderr);
		exit(1);
	}
	*cap = c;
	return p;
}

/* ---- corpus ---------------------------------------------------------- */

#define VOCAB 20000

static char vocab[VOCAB][12];
static double zipf_cdf[VOCAB];

struct buf {
	char *p;
	size_t len, cap;
};

static NOINLINE void buf_append(struct buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap)
		b->p = vec_grow(b->p, &b->cap, 1, b->len + n + 1);
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

static NOINLINE void vocab_init(void)
{
	static const char cons[] = "bcdfghklmnprstvz", vow[] = "aeiou";
	double sum = 0;
	for (int i = 0; i < VOCAB; i++) {
		uint64_t r = rng_next();
		int syl = 1 + (int)(r % 4);
		char *w = vocab[i];
		int n = 0;
		for (int s = 0; s < syl; s++) {
			w[n++] = cons[(r >> (8 + 6 * s)) & 15];
			w[n++] = vow[((r >> (12 + 6 * s)) & 7) % 5];
		}
		w[n] = 0;
		sum += 1.0 / (i + 1);
		zipf_cdf[i] = sum;
	}
	for (int i = 0; i < VOCAB; i++)
		zipf_cdf[i] /= sum;
}

static NOINLINE int word_pick(void)
{
	double u = (double)(rng_next() >> 11) / 9007199254740992.0;
	int lo = 0, hi = VOCAB - 1;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (zipf_cdf[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static NOINLINE void doc_generate(struct buf *b, int words)
{
	for (int i = 0; i < words; i++) {
		const char *w = vocab[word_pick()];
		buf_append(b, w, strlen(w));
		buf_append(b, (rng_next() & 15) ? " " : ". ", (rng_next() & 15) ? 1 : 2);
	}
}

static NOINLINE struct buf *corpus_generate(int ndocs)
{
	struct buf *docs = xmalloc(sizeof *docs * ndocs);
	for (int d = 0; d < ndocs; d++) {
		memset(&docs[d], 0, sizeof docs[d]);
		doc_generate(&docs[d], 50 + (int)(rng_next() % 400));
	}
	return docs;
}

/* ---- dictionary and index -------------------------------------------- */

struct posting {
	uint32_t doc, tf;
};

struct term {
	char *word;
	uint32_t hash;
	struct posting *post;
	size_t npost, cap;
};

struct dict {
	struct term *terms;
	size_t nterms, cap;
	uint32_t *slots; /* index+1 into terms, 0 = empty */
	size_t nslots;
};

static NOINLINE uint32_t hash_bytes(const char *s, size_t n)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

static NOINLINE void dict_grow(struct dict *d)
{
	size_t ns = d->nslots ? d->nslots * 2 : 1024;
	uint32_t *slots = calloc(ns, sizeof *slots);
	if (!slots)
		exit(1);
	for (size_t i = 0; i < d->nterms; i++) {
		size_t j = d->terms[i].hash & (ns - 1);
		while (slots[j])
			j = (j + 1) & (ns - 1);
		slots[j] = (uint32_t)i + 1;
	}
	free(d->slots);
	d->slots = slots;
	d->nslots = ns;
}

static NOINLINE struct term *dict_insert(struct dict *d, const char *s, size_t n,
					 uint32_t h, size_t slot)
{
	if (d->nterms == d->cap)
		d->terms = vec_grow(d->terms, &d->cap, sizeof *d->terms, d->nterms + 1);
	struct term *t = &d->terms[d->nterms];
	memset(t, 0, sizeof *t);
	t->word = xmalloc(n + 1);
	memcpy(t->word, s, n);
	t->word[n] = 0;
	t->hash = h;
	d->slots[slot] = (uint32_t)++d->nterms;
	if (d->nterms * 2 > d->nslots)
		dict_grow(d);
	return &d->terms[d->nterms - 1];
}

static NOINLINE struct term *dict_lookup(struct dict *d, const char *s, size_t n,
					 int create)
{
	uint32_t h = hash_bytes(s, n);
	size_t j = h & (d->nslots - 1);
	while (d->slots[j]) {
		struct term *t = &d->terms[d->slots[j] - 1];
		if (t->hash == h && strncmp(t->word, s, n) == 0 && t->word[n] == 0)
			return t;
		j = (j + 1) & (d->nslots - 1);
	}
	return create ? dict_insert(d, s, n, h, j) : NULL;
}

static NOINLINE void postings_append(struct term *t, uint32_t doc)
{
	if (t->npost && t->post[t->npost - 1].doc == doc) {
		t->post[t->npost - 1].tf++;
		return;
	}
	if (t->npost == t->cap)
		t->post = vec_grow(t->post, &t->cap, sizeof *t->post, t->npost + 1);
	t->post[t->npost].doc = doc;
	t->post[t->npost].tf = 1;
	t->npost++;
}

static NOINLINE void index_add_term(struct dict *d, const char *s, size_t n,
				    uint32_t doc)
{
	postings_append(dict_lookup(d, s, n, 1), doc);
}

static inline int is_word_char(char c)
{
	return c >= 'a' && c <= 'z';
}

static NOINLINE size_t token_next(const char *s, size_t len, size_t *pos,
				  size_t *start)
{
	size_t i = *pos;
	while (i < len && !is_word_char(s[i]))
		i++;
	*start = i;
	while (i < len && is_word_char(s[i]))
		i++;
	*pos = i;
	return i - *start;
}

static NOINLINE void doc_tokenize(struct dict *d, const struct buf *b, uint32_t doc)
{
	size_t pos = 0, start, n;
	while ((n = token_next(b->p, b->len, &pos, &start)) > 0)
		index_add_term(d, b->p + start, n, doc);
}

static NOINLINE void index_build(struct dict *d, const struct buf *docs, int ndocs)
{
	dict_grow(d);
	for (int i = 0; i < ndocs; i++)
		doc_tokenize(d, &docs[i], (uint32_t)i);
}

/* ---- queries: parser ------------------------------------------------- */

enum { Q_TERM, Q_AND, Q_OR, Q_NOT };

struct qnode {
	int op;
	struct term *term;
	struct qnode *l, *r;
};

struct lexer {
	const char *s;
	size_t pos;
	char tok[32];
	int kind; /* 0 end, 'w' word, '(' ')' '&' '|' '!' */
};

static NOINLINE void lexer_next(struct lexer *lx)
{
	while (lx->s[lx->pos] == ' ')
		lx->pos++;
	char c = lx->s[lx->pos];
	if (!c) {
		lx->kind = 0;
		return;
	}
	if (is_word_char(c)) {
		size_t n = 0;
		while (is_word_char(lx->s[lx->pos]) && n < sizeof lx->tok - 1)
			lx->tok[n++] = lx->s[lx->pos++];
		lx->tok[n] = 0;
		lx->kind = 'w';
		return;
	}
	lx->kind = c;
	lx->pos++;
}

static struct qnode *parse_or(struct lexer *lx, struct dict *d);

static NOINLINE struct qnode *qnode_new(int op, struct qnode *l, struct qnode *r)
{
	struct qnode *q = xmalloc(sizeof *q);
	q->op = op;
	q->term = NULL;
	q->l = l;
	q->r = r;
	return q;
}

static NOINLINE struct qnode *parse_primary(struct lexer *lx, struct dict *d)
{
	if (lx->kind == '(') {
		lexer_next(lx);
		struct qnode *q = parse_or(lx, d);
		if (lx->kind == ')')
			lexer_next(lx);
		return q;
	}
	struct qnode *q = qnode_new(Q_TERM, NULL, NULL);
	if (lx->kind == 'w')
		q->term = dict_lookup(d, lx->tok, strlen(lx->tok), 0);
	lexer_next(lx);
	return q;
}

static NOINLINE struct qnode *parse_unary(struct lexer *lx, struct dict *d)
{
	if (lx->kind == '!') {
		lexer_next(lx);
		return qnode_new(Q_NOT, parse_unary(lx, d), NULL);
	}
	return parse_primary(lx, d);
}

static NOINLINE struct qnode *parse_and(struct lexer *lx, struct dict *d)
{
	struct qnode *q = parse_unary(lx, d);
	while (lx->kind == '&') {
		lexer_next(lx);
		q = qnode_new(Q_AND, q, parse_unary(lx, d));
	}
	return q;
}

static NOINLINE struct qnode *parse_or(struct lexer *lx, struct dict *d)
{
	struct qnode *q = parse_and(lx, d);
	while (lx->kind == '|') {
		lexer_next(lx);
		q = qnode_new(Q_OR, q, parse_and(lx, d));
	}
	return q;
}

static NOINLINE struct qnode *query_parse(const char *s, struct dict *d)
{
	struct lexer lx = { .s = s };
	lexer_next(&lx);
	return parse_or(&lx, d);
}

static void qnode_free(struct qnode *q)
{
	if (!q)
		return;
	qnode_free(q->l);
	qnode_free(q->r);
	free(q);
}

/* ---- queries: evaluation --------------------------------------------- */

struct hits {
	uint32_t *doc;
	size_t n, cap;
};

static NOINLINE void hits_push(struct hits *h, uint32_t doc)
{
	if (h->n == h->cap)
		h->doc = vec_grow(h->doc, &h->cap, sizeof *h->doc, h->n + 1);
	h->doc[h->n++] = doc;
}

static NOINLINE struct hits postings_intersect(struct hits a, struct hits b)
{
	struct hits r = { 0 };
	size_t i = 0, j = 0;
	while (i < a.n && j < b.n) {
		if (a.doc[i] < b.doc[j])
			i++;
		else if (a.doc[i] > b.doc[j])
			j++;
		else {
			hits_push(&r, a.doc[i]);
			i++, j++;
		}
	}
	return r;
}

static NOINLINE struct hits postings_union(struct hits a, struct hits b)
{
	struct hits r = { 0 };
	size_t i = 0, j = 0;
	while (i < a.n || j < b.n) {
		if (j == b.n || (i < a.n && a.doc[i] < b.doc[j]))
			hits_push(&r, a.doc[i++]);
		else if (i == a.n || b.doc[j] < a.doc[i])
			hits_push(&r, b.doc[j++]);
		else {
			hits_push(&r, a.doc[i]);
			i++, j++;
		}
	}
	return r;
}

static NOINLINE struct hits postings_complement(struct hits a, uint32_t ndocs)
{
	struct hits r = { 0 };
	size_t i = 0;
	for (uint32_t d = 0; d < ndocs; d++) {
		if (i < a.n && a.doc[i] == d)
			i++;
		else
			hits_push(&r, d);
	}
	return r;
}

static NOINLINE struct hits postings_load(const struct term *t)
{
	struct hits r = { 0 };
	if (t)
		for (size_t i = 0; i < t->npost; i++)
			hits_push(&r, t->post[i].doc);
	return r;
}

static NOINLINE struct hits eval_node(const struct qnode *q, uint32_t ndocs)
{
	struct hits a, b, r;
	switch (q->op) {
	case Q_TERM:
		return postings_load(q->term);
	case Q_NOT:
		a = eval_node(q->l, ndocs);
		r = postings_complement(a, ndocs);
		free(a.doc);
		return r;
	default:
		a = eval_node(q->l, ndocs);
		b = eval_node(q->r, ndocs);
		r = q->op == Q_AND ? postings_intersect(a, b) : postings_union(a, b);
		free(a.doc);
		free(b.doc);
		return r;
	}
}

/* ---- ranking --------------------------------------------------------- */

struct scored {
	uint32_t doc;
	double score;
};

static NOINLINE double bm25_term(const struct term *t, uint32_t doc, double avglen,
				 size_t doclen, uint32_t ndocs)
{
	/* binary search the posting list for doc */
	size_t lo = 0, hi = t->npost;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (t->post[mid].doc < doc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == t->npost || t->post[lo].doc != doc)
		return 0;
	double tf = t->post[lo].tf, k1 = 1.2, b = 0.75;
	double idf = log(1.0 + (ndocs - t->npost + 0.5) / (t->npost + 0.5));
	return idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * doclen / avglen));
}

static void collect_terms(const struct qnode *q, const struct term **out, int *n)
{
	if (!q || *n >= 16)
		return;
	if (q->op == Q_TERM && q->term)
		out[(*n)++] = q->term;
	if (q->op != Q_NOT) {
		collect_terms(q->l, out, n);
		collect_terms(q->r, out, n);
	}
}

static NOINLINE double score_doc(const struct term **terms, int nterms, uint32_t doc,
				 const struct buf *docs, double avglen, uint32_t ndocs)
{
	double s = 0;
	for (int i = 0; i < nterms; i++)
		s += bm25_term(terms[i], doc, avglen, docs[doc].len / 6, ndocs);
	return s;
}

static NOINLINE void merge(struct scored *a, size_t n, size_t mid, struct scored *tmp)
{
	size_t i = 0, j = mid, k = 0;
	while (i < mid && j < n)
		tmp[k++] = a[i].score >= a[j].score ? a[i++] : a[j++];
	while (i < mid)
		tmp[k++] = a[i++];
	while (j < n)
		tmp[k++] = a[j++];
	memcpy(a, tmp, n * sizeof *a);
}

static NOINLINE void merge_sort(struct scored *a, size_t n, struct scored *tmp)
{
	if (n < 2)
		return;
	size_t mid = n / 2;
	merge_sort(a, mid, tmp);
	merge_sort(a + mid, n - mid, tmp);
	merge(a, n, mid, tmp);
}

static NOINLINE double results_rank(const struct qnode *q, struct hits h,
				    const struct buf *docs, double avglen, uint32_t ndocs)
{
	const struct term *terms[16];
	int nterms = 0;
	collect_terms(q, terms, &nterms);
	struct scored *sc = xmalloc(sizeof *sc * (h.n + 1));
	struct scored *tmp = xmalloc(sizeof *tmp * (h.n + 1));
	for (size_t i = 0; i < h.n; i++) {
		sc[i].doc = h.doc[i];
		sc[i].score = score_doc(terms, nterms, h.doc[i], docs, avglen, ndocs);
	}
	merge_sort(sc, h.n, tmp);
	double top = h.n ? sc[0].score : 0;
	free(sc);
	free(tmp);
	return top;
}

static NOINLINE void query_make(char *out, size_t cap, int depth)
{
	/* random boolean expression over frequent-ish words */
	size_t n = strlen(out);
	uint64_t r = rng_next();
	if (depth > 3 || (r & 3) == 0) {
		snprintf(out + n, cap - n, "%s", vocab[word_pick() % 2000]);
		return;
	}
	static const char *ops[] = { " & ", " | ", " & !" };
	snprintf(out + n, cap - n, "(");
	query_make(out, cap, depth + 1);
	n = strlen(out);
	snprintf(out + n, cap - n, "%s", ops[(r >> 8) % 3]);
	query_make(out, cap, depth + 1);
	n = strlen(out);
	snprintf(out + n, cap - n, ")");
}

static NOINLINE double queries_run(struct dict *d, const struct buf *docs, int ndocs,
				   int nqueries)
{
	double total = 0, avglen = 0;
	for (int i = 0; i < ndocs; i++)
		avglen += docs[i].len / 6.0;
	avglen /= ndocs;
	for (int i = 0; i < nqueries; i++) {
		char text[512] = "";
		query_make(text, sizeof text, 0);
		struct qnode *q = query_parse(text, d);
		struct hits h = eval_node(q, (uint32_t)ndocs);
		total += results_rank(q, h, docs, avglen, (uint32_t)ndocs);
		free(h.doc);
		qnode_free(q);
	}
	return total;
}

/* ---- compression ----------------------------------------------------- */

static uint32_t crc_table[256];

static NOINLINE void crc32_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
}

static NOINLINE uint32_t crc32_update(uint32_t crc, const unsigned char *p, size_t n)
{
	crc = ~crc;
	for (size_t i = 0; i < n; i++)
		crc = crc_table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
	return ~crc;
}

static NOINLINE size_t varint_put(unsigned char *out, uint32_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		out[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (unsigned char)v;
	return n;
}

static NOINLINE size_t postings_encode(const struct term *t, unsigned char *out)
{
	size_t n = 0;
	uint32_t prev = 0;
	for (size_t i = 0; i < t->npost; i++) {
		n += varint_put(out + n, t->post[i].doc - prev);
		n += varint_put(out + n, t->post[i].tf);
		prev = t->post[i].doc;
	}
	return n;
}

static NOINLINE uint32_t index_compress(const struct dict *d, size_t *bytes)
{
	uint32_t crc = 0;
	size_t total = 0, cap = 0;
	unsigned char *out = NULL;
	crc32_init();
	for (size_t i = 0; i < d->nterms; i++) {
		const struct term *t = &d->terms[i];
		if (t->npost * 10 > cap)
			out = vec_grow(out, &cap, 1, t->npost * 10);
		size_t n = postings_encode(t, out);
		crc = crc32_update(crc, out, n);
		total += n;
	}
	free(out);
	*bytes = total;
	return crc;
}

/* ---- report ---------------------------------------------------------- */

static NOINLINE void report_print(const struct dict *d, int ndocs, double score,
				  size_t bytes, uint32_t crc)
{
	size_t maxp = 0;
	const char *maxw = "";
	for (size_t i = 0; i < d->nterms; i++)
		if (d->terms[i].npost > maxp) {
			maxp = d->terms[i].npost;
			maxw = d->terms[i].word;
		}
	printf("docs %d terms %zu top-term %s (%zu docs) score %.3f index %zu bytes crc %08x\n",
	       ndocs, d->nterms, maxw, maxp, score, bytes, (unsigned)crc);
}

int main(int argc, char **argv)
{
	int scale = argc > 1 ? atoi(argv[1]) : 1;
	if (scale < 1)
		scale = 1;
	int ndocs = 6000 * scale;
	int nqueries = 300 * scale;

	vocab_init();
	struct buf *docs = corpus_generate(ndocs);
	struct dict d = { 0 };
	index_build(&d, docs, ndocs);
	double score = 0;
	for (int round = 0; round < 3; round++)
		score += queries_run(&d, docs, ndocs, nqueries / 3);
	size_t bytes = 0;
	uint32_t crc = 0;
	for (int round = 0; round < 16; round++)
		crc = index_compress(&d, &bytes);
	report_print(&d, ndocs, score, bytes, crc);
	return 0;
}
