/* ui: the interactive browser's terminal, event loop and view stack.
 *
 * Every event goes to the view on top of the stack (browser.h): a key as
 * the action of the view's key table, or of the generic table when the
 * view falls back to it. After an event each view of the stack settles
 * (the flame graph lays itself out again when its parameters changed) and
 * the top view redraws the screen: the work per event is proportional to
 * what is on screen, never to the profile. */
#include "config.h"
#include "ui.h"
#include "browser.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "search.h"
#include "text.h"
#include "timeindex.h"
#include "xalloc.h"

/* Below this the graph is replaced by "terminal too small". */
#define UI_MIN_COLS 20
#define UI_MIN_LINES 5
/* getch() wakes up this often (ms) without input. A signal that lands
 * between the loop's check and the blocking read (SIGWINCH while drawing,
 * SIGTERM) would otherwise wait for the next key; on a timeout curses looks
 * at its resize flag and we at ours. Nothing is redrawn on a timeout. */
#define UI_POLL_MS 500
/* Early getch() errors in a row taken as a lost terminal (EOF, EIO). */
#define UI_MAX_ERRORS 100
/* A search pass runs in slices of this length between keys, so typing
 * never waits for a whole pass on a big profile (about one frame). While a
 * pass goes on, its progress is redrawn this often, not after every slice
 * (a redraw costs about as much as a slice). */
#define UI_SEARCH_SLICE_NS (12u * 1000u * 1000u)
#define UI_PROGRESS_MS 100
/* While the profile loads: the preview comes after UI_LIVE_DELAY_MS (a
 * load that ends sooner shows none), getch wakes up every UI_LIVE_POLL_MS
 * to see whether the load has ended, the progress on the status line is
 * redrawn every UI_LIVE_STATUS_MS, and a stream's preview is made again
 * after UI_LIVE_REFRESH_MS, or 20 times as long as the last one took. */
#define UI_LIVE_DELAY_MS 300
#define UI_LIVE_POLL_MS 50
#define UI_LIVE_STATUS_MS 250
#define UI_LIVE_REFRESH_MS 2000

enum live_state {
	LIVE_LOADING,
	LIVE_DONE,          /* ui_live_finish: final and fo are set */
	LIVE_ABORT
};

struct ui_live {
	struct ui_live_source src;
	struct ui_options po;       /* the preview's options (views: pviews) */
	enum tree_order order;
	pthread_t tid;
	sigset_t oldmask;           /* the caller's, given back at the end */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	enum live_state state;      /* under mu */
	const struct tree *final;   /* under mu, once LIVE_DONE */
	const struct ui_options *fo;
	int status;                 /* the browser's, when its thread ends */
	bool ran;                   /* its thread ran the browser */
	struct session *ss;         /* the browser, once its thread ran it */
	bool handed;                /* ... and handed it over, the whole
	                               profile shown: the caller's thread
	                               runs it on */
	/* The browser thread's own: the preview shown (finalized) and its
	 * transform stack; what it is ("a 2% sample"); whether it is a
	 * stream's (made again), when it was made and what that took. */
	struct tree *pt;
	struct transform_stack pviews;
	size_t pviews_n;            /* transforms it started with */
	bool user_transforms;       /* the user pushed or undid one since */
	char what[64];
	bool stream;
	long made_ms, cost_ms, status_ms;
};

/* ---- terminal state shared with the cleanup hook and signal handlers ---- */

static FILE *ui_tty;
static SCREEN *ui_screen;
static bool ui_active;          /* curses owns the terminal */
static volatile sig_atomic_t ui_caught;

/* Idempotent: leaves the terminal as the shell had it. Also the xalloc hook,
 * so an out-of-memory death restores the terminal before its message. */
static void ui_restore(void)
{
	if (!ui_active)
		return;
	ui_active = false;
	curs_set(1);
	endwin();               /* also turns mouse reporting off */
	fflush(ui_tty);
}

static void ui_on_signal(int sig)
{
	/* Only a flag: the loop restores the terminal outside the handler. */
	ui_caught = sig;
}

/* The first UI_NCAUGHT are ours while the browser runs; all are saved before
 * newterm() and put back after delscreen(), so neither our handlers nor the
 * ones curses installs (stop, resize) outlive the screen they refer to. */
static const int ui_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGTSTP, SIGWINCH };
#define UI_NSIGNALS (sizeof ui_signals / sizeof ui_signals[0])
#define UI_NCAUGHT 3

static void install_signals(struct sigaction *old)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = ui_on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;        /* no SA_RESTART: the blocked read must return */
	for (size_t k = 0; k < UI_NSIGNALS; k++) {
		sigaction(ui_signals[k], NULL, &old[k]);
		/* An ignored signal stays ignored (nohup, background jobs). */
		if (k < UI_NCAUGHT && old[k].sa_handler != SIG_IGN)
			sigaction(ui_signals[k], &sa, NULL);
	}
}

static void restore_signals(const struct sigaction *old)
{
	for (size_t k = 0; k < UI_NSIGNALS; k++)
		sigaction(ui_signals[k], &old[k], NULL);
}

/* ---- helpers ---- */

long ui_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

FILE *ui_terminal(void)
{
	return ui_tty;
}

/* ---- the view stack ---- */

void ui_push(struct ui *u, struct view *v)
{
	for (size_t k = 1; k < u->nviews; k++)
		if (u->stack[k] == v) {
			u->nviews = k;
			break;
		}
	if (u->nviews < UI_MAX_VIEWS)
		u->stack[u->nviews++] = v;
}

void ui_pop(struct ui *u)
{
	if (u->nviews > 1)
		u->nviews--;
}

void ui_pop_all(struct ui *u)
{
	u->nviews = 1;
}

struct view *ui_below(const struct ui *u, const struct view *v)
{
	for (size_t k = 1; k < u->nviews; k++)
		if (u->stack[k] == v)
			return u->stack[k - 1];
	return NULL;
}

static struct view *top(const struct ui *u)
{
	return u->stack[u->nviews - 1];
}

/* ---- the tree ---- */

/* Says on the status line that a key will take a while: the views' keys
 * are O(tree), about a second per million nodes. */
static void busy_now(struct ui *u, const char *what)
{
	if (u->too_small)
		return;
	move(u->lines - 1, 0);
	clrtoeol();
	attron(A_BOLD);
	paint_text(u, u->lines - 1, 0, what);
	attroff(A_BOLD);
	refresh();
}

void ui_busy(struct ui *u, const char *what)
{
	if (tree_size(u->t) >= 200000)
		busy_now(u, what);
}

void ui_busy_times(struct ui *u, const char *what)
{
	if (u->tl && u->tl->n >= 1000000)
		busy_now(u, what);
}

void ui_tree_changed(struct ui *u)
{
	u->t = transform_stack_tree(u->views);
	u->tree_gen++;
	colour_forget(u);
	finder_tree_changed(u);
	if (u->diffmode) {
		diff_free(&u->diff);
		diff_compute(&u->diff, u->t, transform_stack_tree2(u->views), u->normalize, u->negate);
	}
	flameview_tree_changed(u);
}

/* O(tree), the one kind of key that is. */
void ui_push_transform(struct ui *u, struct transform tr)
{
	char err[256];
	ui_busy(u, "computing the transformed tree...");
	if (u->live)
		u->live->user_transforms = true;
	finder_pause(u);        /* the push frees the tree the pass reads */
	if (!transform_stack_push(u->views, &tr, err, sizeof err)) {
		text_sanitize(err, strlen(err), u->notice, sizeof u->notice);
		return;
	}
	ui_tree_changed(u);
	if (err[0])     /* a note: the hide pattern was too costly on some names */
		text_sanitize(err, strlen(err), u->notice, sizeof u->notice);
}

void ui_undo_transform(struct ui *u)
{
	char label[256], msg[300];
	if (u->views->n > 1)
		ui_busy(u, "recomputing from the loaded profile...");
	if (u->live)
		u->live->user_transforms = true;
	transform_label(&u->views->items[u->views->n - 1], label, sizeof label);
	snprintf(msg, sizeof msg, "undone: %s", label);
	finder_pause(u);        /* the pop frees the tree the pass reads */
	transform_stack_pop(u->views);
	ui_tree_changed(u);
	text_sanitize(msg, strlen(msg), u->notice, sizeof u->notice);
}

/* ---- events ---- */

static void on_resize(struct ui *u)
{
	getmaxyx(stdscr, u->lines, u->cols);
	if (u->lines < 0)
		u->lines = 0;
	if (u->cols < 0)
		u->cols = 0;
	u->too_small = u->cols < UI_MIN_COLS || u->lines < UI_MIN_LINES;
	u->bufsize = TEXT_FIT_BYTES(u->cols + 1);
	u->buf = xrealloc(u->buf, u->bufsize);
	struct view *all[] = { u->flame, u->table, u->sandwich, u->help, u->prompt, u->heat, u->threads_view };
	for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
		if (all[k]->ops->resize)
			all[k]->ops->resize(u, all[k]);
}

static void settle(struct ui *u)
{
	for (size_t k = 0; k < u->nviews; k++)
		if (u->stack[k]->ops->settle)
			u->stack[k]->ops->settle(u, u->stack[k]);
}

/* The top view's action for the key, else (when it falls back and does
 * not handle it) the generic one. Too small a screen leaves only the
 * generic keys, and the prompt's and help's own. */
static void handle_key(struct ui *u, int ch)
{
	if (ch == KEY_RESIZE) {
		on_resize(u);
		settle(u);
		return;
	}
	u->notice[0] = '\0';    /* one-shot: gone with the next key */
	u->mouse_ok = ch == KEY_MOUSE && getmouse(&u->mouse) == OK;
	struct view *v = top(u);
	bool handled = false;
	if (!u->too_small || !v->ops->fallback)
		handled = v->ops->key(u, v, keymap_lookup(v->ops->keys, ch), ch);
	if (!handled && v->ops->fallback) {
		switch (keymap_lookup(KEYMAP_GENERIC, ch)) {
		case KEYMAP_QUIT: u->quit = true; break;
		case KEYMAP_HELP: help_open(u); break;
		case KEYMAP_REDRAW: clearok(curscr, TRUE); break;
		default: break;
		}
	}
	settle(u);
}

static void draw(struct ui *u)
{
	erase();
	colour_begin(u, flameview_spans(u) + (size_t)u->cols);
	struct view *v = top(u);
	if (u->too_small)
		paint_text(u, 0, 0, u->cols >= 18 ? "terminal too small" : "too small");
	else
		v->ops->draw(u, v);
	/* A preview: said over the right of the status line (where "? help"
	 * is once the whole profile is shown), never in the bottom-right
	 * cell. */
	if (u->loading[0] && !u->too_small) {
		int w = text_width(u->loading, strlen(u->loading));
		int x = u->cols - 1 - w;
		attron(A_REVERSE);
		paint_text(u, u->lines - 1, x > 0 ? x : 0, u->loading);
		attroff(A_REVERSE);
	}
	/* The cursor shows where the prompt's typing goes, and only there. */
	curs_set(v->ops->cursor && !u->too_small ? 1 : 0);
	refresh();
}

/* The first line of a notice, without the "tflame: " that stderr wants. */
static void set_notice(struct ui *u, const char *s)
{
	if (!s)
		return;
	if (strncmp(s, "tflame: ", 8) == 0)
		s += 8;
	size_t len = strcspn(s, "\n");
	text_sanitize(s, len, u->notice, sizeof u->notice);
}

/* 24-bit colour through curses needs a terminfo entry that says so (the
 * RGB capability, colours 0xRRGGBB). When COLORTERM promises it and TERM's
 * entry is not one, its "-direct" sibling is tried (xterm-256color ->
 * xterm-direct, tmux-256color -> tmux-direct; ncurses-term has them); a
 * missing one falls back to TERM and its 256 colours. */
static bool direct_term_name(const char *term, char *buf, size_t size)
{
	const char *nc = getenv("NO_COLOR");
	if ((nc && *nc) || !palette_colorterm_direct(getenv("COLORTERM")) || strstr(term, "direct"))
		return false;
	size_t len = strlen(term);
	static const char *const sfx[] = { "-256color", "-88color", "-16color", "-color" };
	for (size_t k = 0; k < sizeof sfx / sizeof sfx[0]; k++) {
		size_t n = strlen(sfx[k]);
		if (len > n && strcmp(term + len - n, sfx[k]) == 0) {
			len -= n;
			break;
		}
	}
	int w = snprintf(buf, size, "%.*s-direct", (int)len, term);
	return w > 0 && (size_t)w < size;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int open_terminal(void)
{
	ui_tty = fopen("/dev/tty", "r+");
	if (!ui_tty) {
		fprintf(stderr, "tflame: cannot open the terminal: %s\n", strerror(errno));
		return -1;
	}
	const char *term = getenv("TERM");
	if (!term || !*term) {
		fputs("tflame: cannot open the terminal: TERM is not set\n", stderr);
		fclose(ui_tty);
		return -1;
	}
	char direct[128];
	ui_screen = NULL;
	if (direct_term_name(term, direct, sizeof direct))
		ui_screen = newterm(direct, ui_tty, ui_tty);
	if (!ui_screen)
		ui_screen = newterm(NULL, ui_tty, ui_tty);
	if (!ui_screen) {
		char safe[64];
		text_sanitize(term, strlen(term), safe, sizeof safe);
		fprintf(stderr, "tflame: cannot open the terminal: unknown terminal type '%s'\n", safe);
		fclose(ui_tty);
		return -1;
	}
	const char *cup = tigetstr("cup");
	if (!cup || cup == (char *)-1) {
		/* dumb terminals, printers: a screen cannot be drawn there */
		char safe[64];
		text_sanitize(term, strlen(term), safe, sizeof safe);
		delscreen(ui_screen);
		ui_screen = NULL;
		fclose(ui_tty);
		fprintf(stderr, "tflame: the terminal (TERM=%s) cannot move its cursor, which the browser "
		        "needs: use --print, --collapse or --svg\n", safe);
		return -1;
	}
	set_term(ui_screen);
	ui_active = true;
	xalloc_set_cleanup(ui_restore);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	/* Until a screen has been through endwin() once, ncurses (6.4 at
	 * least) flushes its output at every cursor move: a full repaint was
	 * hundreds of small write()s, most of its time. Suspended here, before
	 * anything is drawn, the first refresh() resumes it, and repaints then
	 * go out in one write each. endwin() turns the mouse off:
	 * mousemask() comes after it. */
	endwin();
	mousemask(BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED | BUTTON4_PRESSED
#ifdef BUTTON5_PRESSED
	          | BUTTON5_PRESSED
#endif
	          , NULL);
	return 0;
}

/* The sample times, threads, range and frame objects the options give. */
static void take_times(struct ui *u, const struct ui_options *o)
{
	u->tl = o->timeline && o->timeline->n ? o->timeline : NULL;
	u->tl_tree = o->timeline_tree;
	u->dsos = o->dsos;
	u->dso_names = o->dso_names;
	u->threads = o->threads;
	u->range_set = o->range_set;
	u->range_t0 = o->range_t0;
	u->range_t1 = o->range_t1;
}

/* The browser's state for t and o, and the first paint (the terminal,
 * real or headless, is open). own holds the transform stack when o has
 * none. */
static void live_say(struct ui *u);

static void ui_setup(struct ui *u, struct transform_stack *own, const struct tree *t,
                     const struct ui_options *o, struct ui_live *lv)
{
	memset(u, 0, sizeof *u);
	u->live = lv;
	if (lv)
		live_say(u);
	u->t = t;
	u->tree_gen = 1;
	u->title = o->title;
	u->unit = o->unit;
	u->views = o->views;
	if (!u->views) {
		transform_stack_init(own, t, NULL, TREE_ORDER_NAME);
		u->views = own;
	}
	u->base0 = u->views->base;
	u->diffmode = o->diff && transform_stack_tree2(u->views) != NULL;
	u->negate = o->negate;
	u->normalize = o->normalize;
	if (u->diffmode)
		diff_compute(&u->diff, u->t, transform_stack_tree2(u->views), u->normalize, u->negate);
	take_times(u, o);
	u->flame = flameview_new(u, o);
	u->table = tablescreen_new(o->table_sort);
	u->sandwich = sandwich_new(o->min_width);
	u->help = help_new();
	u->prompt = prompt_new();
	u->heat = heat_new();
	u->threads_view = threads_new();
	u->stack[0] = u->flame;
	u->nviews = 1;
	set_notice(u, o->notice);
	colour_init(u, o);

	on_resize(u);
	u->stats = o->stats;
	if (o->search && o->search[0])
		finder_search_initial(u, o->search);
	if (o->table)
		tablescreen_open(u);
	if (o->sandwich)
		sandwich_start(u, o->sandwich_name);
	if (o->chart)
		ui_set_chart(u, true);
	if (o->heatmap)
		heat_open(u);
	settle(u);
	draw(u);
	finder_index(u);        /* after the first paint: it must not delay it */
	if (u->tl && !u->ti)
		u->ti_job = timeindex_start(u->tl, u->tl_tree);
}

static void ui_teardown(struct ui *u, struct transform_stack *own)
{
	finder_free(u);         /* the index before the tree goes */
	samples_free(&u->samples);
	flameview_free(u->flame);
	tablescreen_free(u->table);
	sandwich_free(u->sandwich);
	help_free(u->help);
	prompt_free(u->prompt);
	heat_free(u->heat);
	threads_free(u->threads_view);
	if (u->stats && u->ti)
		fprintf(stderr, "timeindex_bytes %zu build_ms %.1f\n", timeindex_bytes(u->ti), u->ti->build_ms);
	timeindex_cancel(u->ti_job);
	timeindex_free(u->ti);
	free(u->own_threads);
	free(u->wins);
	if (u->diffmode)
		diff_free(&u->diff);
	if (u->views == own)
		transform_stack_free(own);
	else    /* the caller's stack: its base again (it only frees it now) */
		u->views->base = u->base0;
	if (u->has_range_tree)
		tree_free(&u->range_tree);
	lineedit_history_free(&u->hide_hist);
	lineedit_history_free(&u->filter_hist);
	colour_free(u);
	free(u->buf);
}

static bool live_poll(struct ui *u);

/* A browser on the terminal: opened, run (perhaps by two threads in
 * turn: a live browser's, then the caller's once the load ends), closed. */
struct session {
	struct ui ui;
	struct transform_stack own;
	struct sigaction old[UI_NSIGNALS];
	bool lost;                  /* the terminal went away */
};

/* The terminal and the browser's state for t and o (lv: a live browser's
 * preview), and the first paint. False (a message said why) when the
 * terminal cannot be opened. */
static bool session_open(struct session *ss, const struct tree *t, const struct ui_options *o, struct ui_live *lv)
{
	/* Before newterm(): curses then leaves our SIGINT/SIGTERM alone. */
	ui_caught = 0;
	ss->lost = false;
	install_signals(ss->old);
	if (open_terminal() != 0) {
		restore_signals(ss->old);
		return false;
	}
	ui_setup(&ss->ui, &ss->own, t, o, lv);
	return true;
}

/* Keys until the user quits (or a signal, or a lost terminal); true
 * instead when a live browser has just shown the whole profile, for the
 * thread that loaded it to take over. */
static bool session_loop(struct session *ss)
{
	struct ui *u = &ss->ui;
	bool live = u->live != NULL;
	int errors = 0;
	long last_draw = ui_now_ms();
	while (!u->quit && !ui_caught) {
		/* While a pass is pending, getch only looks for a key and the
		 * pass goes on in slices between keys. */
		bool busy = u->find.pending != NULL;
		timeout(busy ? 0 : u->live ? UI_LIVE_POLL_MS : UI_POLL_MS);
		long t0 = ui_now_ms();
		int ch = getch();
		if (ui_caught)
			break;
		if (u->live && live_poll(u)) {
			if (u->quit)
				break;
			settle(u);
			draw(u);
			last_draw = ui_now_ms();
			if (live && !u->live) {
				/* the whole profile is shown: a key read meanwhile
				 * is the next getch's */
				if (ch != ERR)
					ungetch(ch);
				return true;
			}
		}
		if (ch == ERR && busy) {
			finder_work(u, UI_SEARCH_SLICE_NS);
			if (!u->find.pending || ui_now_ms() - last_draw >= UI_PROGRESS_MS) {
				settle(u);
				draw(u);
				last_draw = ui_now_ms();
			}
			continue;
		}
		if (ch == ERR) {
			/* A timeout is normal. An early error is EINTR (stop and
			 * continue) or a terminal that went away: EOF forever, which
			 * must not spin. */
			if (ui_now_ms() - t0 >= (u->live ? UI_LIVE_POLL_MS : UI_POLL_MS) / 2)
				errors = 0;
			else if (++errors > UI_MAX_ERRORS) {
				ss->lost = true;
				break;
			}
			continue;
		}
		errors = 0;
		bool timed = u->stats && u->find.prompting;
		struct timespec k0, k1;
		if (timed)
			clock_gettime(CLOCK_MONOTONIC, &k0);
		handle_key(u, ch);
		if (!u->quit)
			draw(u);
		last_draw = ui_now_ms();
		if (timed) {
			/* A keystroke of the prompt: key to screen, slice included. */
			clock_gettime(CLOCK_MONOTONIC, &k1);
			double ms = (double)(k1.tv_sec - k0.tv_sec) * 1e3 + (double)(k1.tv_nsec - k0.tv_nsec) / 1e6;
			u->nkeys++;
			u->keys_ms += ms;
			if (ms > u->keys_max_ms)
				u->keys_max_ms = ms;
		}
	}
	return false;
}

/* The terminal as it was; returns the exit status (ui_run's). A live
 * browser closed while the profile still loads ends the process. */
static int session_close(struct session *ss)
{
	struct ui *u = &ss->ui;
	int status = ui_caught ? 128 + ui_caught : ss->lost ? 1 : 0;
	ui_restore();
	xalloc_set_cleanup(NULL);
	delscreen(ui_screen);
	ui_screen = NULL;
	fclose(ui_tty);
	ui_tty = NULL;
	restore_signals(ss->old);
	if (ss->lost)
		fputs("tflame: lost the terminal\n", stderr);
	if (u->stats && u->nkeys)
		fprintf(stderr, "search_keys %lu mean_ms %.2f max_ms %.2f passes %lu pass_max_ms %.0f "
		        "pass_last_ms %.0f\n", u->nkeys, u->keys_ms / (double)u->nkeys, u->keys_max_ms,
		        u->find.npasses, u->find.pass_max_ms, u->find.pass_last_ms);
	/* Quit while the profile still loads: nothing is left to do. */
	if (u->live) {
		pthread_mutex_lock(&u->live->mu);
		bool loading = u->live->state == LIVE_LOADING;
		pthread_mutex_unlock(&u->live->mu);
		if (loading)
			_exit(status);
	}
	ui_teardown(u, &ss->own);
	return status;
}

int ui_run(const struct tree *t, const struct ui_options *o)
{
	struct session *ss = xmalloc(sizeof *ss);
	int status = 1;
	if (session_open(ss, t, o, NULL)) {
		session_loop(ss);
		status = session_close(ss);
	}
	free(ss);
	return status;
}

/* ---- the browser while the profile loads -------------------------------- */

/* The status line's word on the preview: how far the load is, and what is
 * shown. */
static void live_say(struct ui *u)
{
	struct ui_live *lv = u->live;
	char st[64] = "";
	lv->src.status(lv->src.arg, st, sizeof st);
	char text[sizeof u->loading];
	snprintf(text, sizeof text, " %s (showing %s) ", st, lv->what);
	text_sanitize(text, strlen(text), u->loading, sizeof u->loading);
	lv->status_ms = ui_now_ms();
}

/* A preview from the source, finalized, with its transform stack: into
 * *pt and *st. False when the source has none (yet). */
static bool live_make(struct ui_live *lv, struct tree **pt, struct transform_stack *st)
{
	long t0 = ui_now_ms();
	char what[sizeof lv->what];
	struct tree *t = lv->src.preview(lv->src.arg, what, sizeof what);
	if (!t)
		return false;
	tree_finalize(t, lv->order);
	if (st) {
		if (lv->src.views)
			lv->src.views(lv->src.views_arg, st, t, lv->order);
		else
			transform_stack_init(st, t, NULL, lv->order);
	}
	*pt = t;
	memcpy(lv->what, what, sizeof lv->what);
	lv->stream = strncmp(what, "the first", 9) == 0;
	lv->made_ms = ui_now_ms();
	lv->cost_ms = lv->made_ms - t0;
	return true;
}

/* The path of node i of t from the root's child down: names into v (at
 * most cap), its length returned (0 for the root or TREE_NONE). */
static size_t node_path(const struct tree *t, tree_idx i, struct tree_frame *v, size_t cap)
{
	size_t n = 0;
	for (tree_idx k = i; k != TREE_NONE && k != TREE_ROOT; k = tree_parent(t, k))
		n++;
	if (n > cap)
		return 0;
	size_t j = n;
	for (tree_idx k = i; k != TREE_NONE && k != TREE_ROOT; k = tree_parent(t, k))
		v[--j] = (struct tree_frame){ tree_name(t, k), tree_name_len(t, k) };
	return n;
}

/* The node of t at path v[0..n), or TREE_NONE (TREE_ROOT for n == 0).
 * O(siblings along the path). */
static tree_idx find_path(const struct tree *t, const struct tree_frame *v, size_t n)
{
	tree_idx cur = TREE_ROOT;
	for (size_t k = 0; k < n && cur != TREE_NONE; k++) {
		tree_idx c = tree_first_child(t, cur);
		while (c != TREE_NONE && !(tree_name_len(t, c) == v[k].len &&
		                           memcmp(tree_name(t, c), v[k].s, v[k].len) == 0))
			c = tree_next_sibling(t, c);
		cur = c;
	}
	return cur;
}

#define LIVE_PATH_MAX 4096

/* The browsed tree becomes the current one of u->views, whose base
 * replaced the preview: what is indexed by the old tree starts again
 * (ui_tree_changed), then the zoom root and the selection are found again by
 * their paths. The old tree must still be alive. */
static void live_rebased(struct ui *u, const struct tree *old)
{
	struct tree_frame *zp = xmalloc(2 * LIVE_PATH_MAX * sizeof *zp), *sp = zp + LIVE_PATH_MAX;
	tree_idx z = flameview_zoom(u), sel = flameview_selected(u);
	size_t nz = node_path(old, z, zp, LIVE_PATH_MAX), ns = node_path(old, sel, sp, LIVE_PATH_MAX);
	bool zoomed = z != TREE_ROOT && nz > 0, selected = sel == TREE_ROOT || ns > 0;
	ui_tree_changed(u);
	tree_idx nzoom = zoomed ? find_path(u->t, zp, nz) : TREE_NONE;
	tree_idx nsel = selected ? find_path(u->t, sp, ns) : TREE_NONE;
	flameview_restore(u, nzoom, nsel);
	free(zp);
}

/* The views over the flame graph hold what they computed from the tree:
 * they close before it changes; the table and the help open again after. */
static struct view *live_close_views(struct ui *u)
{
	struct view *v = top(u);
	ui_pop_all(u);
	return v == u->table || v == u->help ? v : NULL;
}

static void live_reopen(struct ui *u, struct view *v)
{
	if (v == u->table)
		tablescreen_open(u);
	else if (v == u->help)
		help_open(u);
}

/* The load ended: its tree t (with o) replaces the preview. */
static void live_final(struct ui *u, const struct tree *t, const struct ui_options *o)
{
	struct ui_live *lv = u->live;
	struct view *again = live_close_views(u);
	finder_pause(u);
	const struct tree *old = u->t;
	if (lv->user_transforms || !o->views) {
		/* what the user did to the preview, done to the profile */
		if (transform_stack_rebase(&lv->pviews, o->views ? o->views->base : t))
			snprintf(u->notice, sizeof u->notice, "some transforms do not apply to the whole profile: dropped");
	} else {
		u->views = o->views;
	}
	u->base0 = u->views->base;
	u->unit = o->unit;
	u->title = o->title;
	take_times(u, o);
	if (o->notice && !u->notice[0])
		set_notice(u, o->notice);
	u->loading[0] = '\0';
	live_rebased(u, old);
	if (u->views != &lv->pviews) {
		transform_stack_free(&lv->pviews);
		memset(&lv->pviews, 0, sizeof lv->pviews);
	}
	tree_free(lv->pt);
	free(lv->pt);
	lv->pt = NULL;
	u->live = NULL;
	live_reopen(u, again);
}

/* A newer preview of a stream replaces the one shown. */
static void live_refresh(struct ui *u)
{
	struct ui_live *lv = u->live;
	struct tree *pt;
	if (!live_make(lv, &pt, NULL))
		return;
	struct view *again = live_close_views(u);
	finder_pause(u);
	const struct tree *old = u->t;
	transform_stack_rebase(&lv->pviews, pt);
	u->base0 = u->views->base;
	live_rebased(u, old);
	tree_free(lv->pt);
	free(lv->pt);
	lv->pt = pt;
	live_reopen(u, again);
}

/* Between keys while the profile loads: the whole profile once loaded
 * (not while a prompt is open: the swap waits for it), else a newer
 * preview of a stream now and then, and the progress. True when the
 * screen needs a redraw; u->quit set when the load failed. */
static bool live_poll(struct ui *u)
{
	struct ui_live *lv = u->live;
	pthread_mutex_lock(&lv->mu);
	enum live_state st = lv->state;
	const struct tree *ft = lv->final;
	const struct ui_options *fo = lv->fo;
	pthread_mutex_unlock(&lv->mu);
	if (st == LIVE_ABORT) {
		u->quit = true;
		return true;
	}
	if (st == LIVE_DONE) {
		if (top(u) == u->prompt)
			return false;
		live_final(u, ft, fo);
		return true;
	}
	long now = ui_now_ms();
	if (lv->stream && top(u) != u->prompt &&
	    now - lv->made_ms >= (UI_LIVE_REFRESH_MS > 20 * lv->cost_ms ? UI_LIVE_REFRESH_MS : 20 * lv->cost_ms)) {
		live_refresh(u);
		live_say(u);
		return true;
	}
	if (now - lv->status_ms < UI_LIVE_STATUS_MS)
		return false;
	char was[sizeof u->loading];
	memcpy(was, u->loading, sizeof was);
	live_say(u);
	return strcmp(was, u->loading) != 0;
}

static const int live_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGTSTP, SIGWINCH };

static void live_sigset(sigset_t *set)
{
	sigemptyset(set);
	for (size_t k = 0; k < sizeof live_signals / sizeof live_signals[0]; k++)
		sigaddset(set, live_signals[k]);
}

static void *live_main(void *arg)
{
	struct ui_live *lv = arg;
	sigset_t set;
	live_sigset(&set);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	long t0 = ui_now_ms();
	bool shown = false;
	pthread_mutex_lock(&lv->mu);
	while (lv->state == LIVE_LOADING) {
		long wait = t0 + UI_LIVE_DELAY_MS - ui_now_ms();
		if (wait <= 0) {
			pthread_mutex_unlock(&lv->mu);
			shown = live_make(lv, &lv->pt, &lv->pviews);
			pthread_mutex_lock(&lv->mu);
			if (shown)
				break;
			wait = 100;     /* nothing read yet: again soon */
		}
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += wait / 1000;
		ts.tv_nsec += (wait % 1000) * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&lv->cv, &lv->mu, &ts);
	}
	if (shown && lv->state != LIVE_LOADING) {
		/* the load ended meanwhile: no preview */
		transform_stack_free(&lv->pviews);
		memset(&lv->pviews, 0, sizeof lv->pviews);
		tree_free(lv->pt);
		free(lv->pt);
		lv->pt = NULL;
		shown = false;
	}
	pthread_mutex_unlock(&lv->mu);
	/* Without a preview, the caller's thread runs the browser (as
	 * ui_run): nothing changes for a load that ends soon. */
	if (shown) {
		lv->ran = true;
		lv->pviews_n = lv->pviews.n;
		lv->po.views = &lv->pviews;
		lv->ss = xmalloc(sizeof *lv->ss);
		if (!session_open(lv->ss, transform_stack_tree(&lv->pviews), &lv->po, lv))
			lv->status = 1;
		else if (session_loop(lv->ss))
			lv->handed = true;  /* the caller's thread goes on */
		else
			lv->status = session_close(lv->ss);
		if (!lv->handed) {
			free(lv->ss);
			lv->ss = NULL;
		}
	}
	return NULL;
}

struct ui_live *ui_live_start(const struct ui_live_source *src, const struct ui_options *o, enum tree_order order)
{
	struct ui_live *lv = xcalloc(1, sizeof *lv);
	lv->src = *src;
	lv->po = *o;
	lv->po.views = NULL;
	lv->po.notice = NULL;
	lv->po.timeline = NULL;
	lv->po.heatmap = lv->po.chart = false;
	lv->order = order;
	lv->state = LIVE_LOADING;
	pthread_mutex_init(&lv->mu, NULL);
	pthread_cond_init(&lv->cv, NULL);
	sigset_t set;
	live_sigset(&set);
	pthread_sigmask(SIG_BLOCK, &set, &lv->oldmask);
	if (pthread_create(&lv->tid, NULL, live_main, lv) != 0) {
		pthread_sigmask(SIG_SETMASK, &lv->oldmask, NULL);
		pthread_mutex_destroy(&lv->mu);
		pthread_cond_destroy(&lv->cv);
		free(lv);
		return NULL;
	}
	return lv;
}

/* Tells the browser's thread how the load ended, waits for it to end and
 * frees lv; returns its status. */
static int live_end(struct ui_live *lv, enum live_state st, const struct tree *t, const struct ui_options *o)
{
	pthread_mutex_lock(&lv->mu);
	lv->state = st;
	lv->final = t;
	lv->fo = o;
	pthread_cond_broadcast(&lv->cv);
	pthread_mutex_unlock(&lv->mu);
	pthread_join(lv->tid, NULL);
	pthread_sigmask(SIG_SETMASK, &lv->oldmask, NULL);
	int status;
	if (lv->handed) {
		/* this thread goes on with the browser: one thread when idle,
		 * as without a preview */
		session_loop(lv->ss);
		status = session_close(lv->ss);
		free(lv->ss);
	} else {
		status = lv->ran ? lv->status : st == LIVE_DONE ? ui_run(t, o) : 0;
	}
	if (lv->pt) {
		transform_stack_free(&lv->pviews);
		tree_free(lv->pt);
		free(lv->pt);
	} else if (lv->pviews.base) {
		transform_stack_free(&lv->pviews);     /* rebased on t */
	}
	pthread_mutex_destroy(&lv->mu);
	pthread_cond_destroy(&lv->cv);
	free(lv);
	return status;
}

int ui_live_finish(struct ui_live *lv, const struct tree *t, const struct ui_options *o)
{
	return live_end(lv, LIVE_DONE, t, o);
}

void ui_live_abort(struct ui_live *lv)
{
	live_end(lv, LIVE_ABORT, NULL, NULL);
}

/* ---- headless ------------------------------------------------------------ */

/* The browser on a screen that curses keeps in memory only: output to
 * /dev/null, keys handed over by the caller. */
struct ui_headless {
	struct ui u;                /* first: a struct ui * is one of these */
	struct transform_stack own;
	SCREEN *scr;
	FILE *out, *in;
};

struct ui *ui_headless_open(const struct tree *t, const struct ui_options *o, int cols, int lines)
{
	static const char *const types[] = { "xterm-256color", "xterm", "vt100" };
	struct ui_headless *h = xcalloc(1, sizeof *h);
	h->out = fopen("/dev/null", "w");
	h->in = fopen("/dev/null", "r");
	for (size_t i = 0; h->out && h->in && !h->scr && i < sizeof types / sizeof types[0]; i++)
		h->scr = newterm(types[i], h->out, h->in);
	if (!h->scr) {
		fputs("tflame: no terminfo entry for a headless screen (xterm-256color, xterm, vt100)\n", stderr);
		if (h->out)
			fclose(h->out);
		if (h->in)
			fclose(h->in);
		free(h);
		return NULL;
	}
	set_term(h->scr);
	ui_tty = h->out;        /* what goes to the terminal (y's OSC 52) goes nowhere */
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	resizeterm(lines > 0 ? lines : 1, cols > 0 ? cols : 1);
	ui_setup(&h->u, &h->own, t, o, NULL);
	return &h->u;
}

bool ui_headless_key(struct ui *u, int key, double *handle_ms, double *draw_ms)
{
	double t0 = now_s();
	handle_key(u, key);
	/* A pass goes on in slices between keys in a terminal; here it ends
	 * before the next key, so that what a script sees does not depend on
	 * the machine's speed (and a search key's time is its full result's). */
	if (u->find.pending) {
		while (u->find.pending)
			finder_work(u, UI_SEARCH_SLICE_NS);
		settle(u);
	}
	double t1 = now_s();
	if (!u->quit)
		draw(u);
	double t2 = now_s();
	if (handle_ms)
		*handle_ms = (t1 - t0) * 1e3;
	if (draw_ms)
		*draw_ms = (t2 - t1) * 1e3;
	return !u->quit;
}

bool ui_headless_resize(struct ui *u, int cols, int lines, double *handle_ms, double *draw_ms)
{
	resizeterm(lines > 0 ? lines : 1, cols > 0 ? cols : 1);
	return ui_headless_key(u, KEY_RESIZE, handle_ms, draw_ms);
}

void ui_headless_dump(struct ui *u, FILE *out)
{
	(void)u;
	wchar_t *w = xreallocarray(NULL, (size_t)COLS + 1, sizeof *w);
	for (int y = 0; y < LINES; y++) {
		int n = mvwinnwstr(stdscr, y, 0, w, COLS);
		if (n < 0)
			n = 0;
		w[n] = L'\0';
		while (n > 0 && w[n - 1] == L' ')
			w[--n] = L'\0';
		mbstate_t st;
		memset(&st, 0, sizeof st);
		for (int i = 0; i < n; i++) {
			char mb[MB_LEN_MAX];
			size_t k = wcrtomb(mb, w[i], &st);
			if (k == (size_t)-1) {
				memset(&st, 0, sizeof st);
				fputc('?', out);
			} else {
				fwrite(mb, 1, k, out);
			}
		}
		fputc('\n', out);
	}
	free(w);
}

void ui_headless_close(struct ui *u)
{
	struct ui_headless *h = (struct ui_headless *)u;
	ui_teardown(u, &h->own);
	endwin();
	delscreen(h->scr);
	ui_tty = NULL;
	fclose(h->out);
	fclose(h->in);
	free(h);
}
