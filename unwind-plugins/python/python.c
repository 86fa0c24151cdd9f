/* python.c - CPython's functions in the logical call path.
 *
 * CPython runs Python code in _PyEval_EvalFrameDefault: one native frame
 * for however many Python functions call each other in it (3.11 on calls
 * Python from Python without recursing in C).  Each thread keeps its
 * Python frames in a chain of _PyInterpreterFrame records, innermost
 * first, from its PyThreadState; the outermost frame of each evaluation
 * loop call is marked is_entry (3.11) or followed by a shim frame (3.12 on).
 * So the chain splits into groups, one per _PyEval_EvalFrameDefault
 * frame on the native stack, in the same order, and a sample's path is
 * rewritten by putting each group's Python frames where its evaluation
 * loop's native frame was: C called from Python sits under the Python
 * line that called it, Python called back from C under the C frame that
 * called it.  Groups are matched from the outermost when the whole stack
 * and the whole chain were read (a call just entered or about to leave
 * has a native frame but no group yet), else from the innermost.  An
 * evaluation loop frame left without a group is left out: its time is
 * its caller's, and no context is named after the loop.
 *
 * Everything at sample time is async-signal-safe and never calls into the
 * interpreter.  The thread state comes from its pthread key (whose value
 * is read in _PyRuntime each time: a fork's child makes a new key); the
 * chain is read under the collector's fault guard (culprit_guarded),
 * bounded, and each code object's type is checked.  A thread remembers
 * code objects by address with the fields that name them, so that a code
 * object freed and its memory reused is seen as new: a new one's name,
 * file and first line are copied once and named (culprit_logical_name)
 * under an ident, a hash of the three, that means the same function in
 * every thread and process.  A frame's line is the instruction it runs,
 * looked up in its code's line table, remembered by (code object,
 * instruction).
 * A frame whose code cannot be read is <python ?>; a chain that cannot be
 * read leaves the sample's native frames, less the evaluation loop's.
 *
 * The layouts of the versions it reads are in layout.h; for any other
 * CPython the plugin says so in one line and stays off. */
#define _GNU_SOURCE
#include "layout.h"
#include "mfile_format.h"
#include "plugin.h"

#define UNW_LOCAL_ONLY
#include <dlfcn.h>
#include <libunwind.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* A key: the function's ident above LINE_BITS bits of line. */
#define LINE_BITS 18
#define IDENT_BITS (CULPRIT_LOGICAL_KEY_BITS - LINE_BITS)
#define LINE_MAX_KEPT ((1u << LINE_BITS) - 1)
#define UNKNOWN_IDENT 0		/* <python ?> */

#define CODE_SLOTS 512		/* code objects a thread remembers */
#define LINE_SLOTS 1024		/* (ident, instruction) -> line */
#define NAMED_SLOTS 4096	/* idents the thread has named */
#define WALK_MAX 4096		/* Python frames read per sample */
#define STR_MAX 512		/* bytes of a name or file kept */
#define LINETABLE_MAX (1u << 20)	/* bytes of a line table read */

struct code_slot {
	uintptr_t code, filename, qualname;
	int32_t firstlineno;
	uint64_t ident;
};

struct line_slot {
	uintptr_t code;		/* 0: free */
	uint64_t ident;		/* code objects of one ident differ in lines */
	int32_t lasti;
	uint32_t line;
};

struct walked {
	uint64_t key;		/* ident << LINE_BITS | line */
	uint8_t entry;		/* outermost frame of an evaluation loop call */
};

struct py_thread {
	struct code_slot code[CODE_SLOTS];
	struct line_slot line[LINE_SLOTS];
	uint64_t named[NAMED_SLOTS];	/* ident + 1; 0: free */
	struct walked w[WALK_MAX];
	int nw;
	int gend[WALK_MAX];		/* where each group ends (split_groups) */
	int evalpos[WALK_MAX];		/* the sample's evaluation loop frames */
	int ngroups;
	int cut;			/* the walk stopped before the chain's end */
	int max;			/* frames to read this time */
};

static const struct py_layout *L;
static uintptr_t runtime;		/* &_PyRuntime */
static uintptr_t eval_lo, eval_hi;	/* _PyEval_EvalFrameDefault's code */
static uintptr_t code_type, str_type;	/* &PyCode_Type, &PyUnicode_Type */
/* Parts of the evaluation loop a compiler moved out of it (GCC's
 * _PyEval_EvalFrameDefault.cold), which have no symbol of their own. */
#define COLD_MAX 4
static struct {
	uintptr_t lo, hi;
} cold[COLD_MAX];
static int ncold;
#define COLD_BRANCHES 16	/* branches from the loop that make a part its own */

static __thread struct py_thread *py_self __attribute__((tls_model("initial-exec")));

/* ---- reading the interpreter's memory (inside culprit_guarded) ---------- */

static uintptr_t load_ptr(uintptr_t at)
{
	return *(const uintptr_t *)at;
}

static int32_t load_i32(uintptr_t at)
{
	return *(const int32_t *)at;
}

/* Appends code point C to BUF (of SIZE) at *N as UTF-8. */
static void put_utf8(char *buf, size_t size, size_t *n, uint32_t c)
{
	unsigned char b[4];
	size_t k;
	if (c < 0x80) {
		b[0] = (unsigned char)c;
		k = 1;
	} else if (c < 0x800) {
		b[0] = (unsigned char)(0xc0 | c >> 6);
		b[1] = (unsigned char)(0x80 | (c & 0x3f));
		k = 2;
	} else if (c < 0x10000) {
		b[0] = (unsigned char)(0xe0 | c >> 12);
		b[1] = (unsigned char)(0x80 | (c >> 6 & 0x3f));
		b[2] = (unsigned char)(0x80 | (c & 0x3f));
		k = 3;
	} else {
		b[0] = (unsigned char)(0xf0 | (c >> 18 & 0x07));
		b[1] = (unsigned char)(0x80 | (c >> 12 & 0x3f));
		b[2] = (unsigned char)(0x80 | (c >> 6 & 0x3f));
		b[3] = (unsigned char)(0x80 | (c & 0x3f));
		k = 4;
	}
	if (*n + k > size)
		return;
	memcpy(buf + *n, b, k);
	*n += k;
}

/* Copies str object S into BUF as UTF-8 (at most SIZE bytes); returns the
 * length, or 0 for anything but a compact str. */
static size_t copy_str(uintptr_t s, char *buf, size_t size)
{
	if (!s || load_ptr(s + L->ob_type) != str_type)
		return 0;
	uint64_t len = *(const uint64_t *)(s + L->str_length);
	uint32_t state = *(const uint32_t *)(s + L->str_state);
	unsigned kind = state >> 2 & 7, compact = state >> 5 & 1, ascii = state >> 6 & 1;
	if (!compact)
		return 0;
	size_t n = 0;
	if (ascii) {
		n = len < size ? (size_t)len : size;
		memcpy(buf, (const void *)(s + L->str_ascii_data), n);
		return n;
	}
	uintptr_t data = s + L->str_compact_data;
	for (uint64_t i = 0; i < len && n + 4 <= size; i++) {
		uint32_t c = kind == 1 ? ((const uint8_t *)data)[i]
			     : kind == 2 ? ((const uint16_t *)data)[i]
			     : kind == 4 ? ((const uint32_t *)data)[i] : '?';
		put_utf8(buf, size, &n, c);
	}
	return n;
}

/* A function's ident: a hash of its name, file and first line, in
 * IDENT_BITS, never UNKNOWN_IDENT. */
static uint64_t ident_of(const char *name, size_t nlen, const char *file, size_t flen,
			 int32_t first)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < nlen; i++)
		h = (h ^ (unsigned char)name[i]) * 0x100000001b3ull;
	h = (h ^ 0xff) * 0x100000001b3ull;
	for (size_t i = 0; i < flen; i++)
		h = (h ^ (unsigned char)file[i]) * 0x100000001b3ull;
	h = (h ^ (uint32_t)first) * 0x100000001b3ull;
	h ^= h >> 29;
	h = h % ((1ull << IDENT_BITS) - 1);
	return h + 1;
}

/* Names IDENT in this thread's file, once. */
static void name_once(struct py_thread *pt, uint64_t ident, const char *name, size_t nlen,
		      const char *file, size_t flen, int32_t first)
{
	size_t start = (size_t)(ident * 0x9e3779b97f4a7c15ull >> 40) % NAMED_SLOTS, i = start;
	for (size_t k = 0; k < 8; k++, i = (i + 1) % NAMED_SLOTS) {
		if (pt->named[i] == ident + 1)
			return;
		if (!pt->named[i])
			break;
	}
	/* A full run of probes: one of them, inside the run, gives way. */
	if (pt->named[i])
		i = (start + (ident & 7)) % NAMED_SLOTS;
	if (culprit_logical_name(CULPRIT_LOGICAL_PYTHON, LINE_BITS, ident, name, nlen, file, flen,
				 first > 0 ? (uint32_t)first : 0) == 0)
		pt->named[i] = ident + 1;
}

/* The ident of code object CODE (its type checked), named if new. */
static uint64_t code_ident(struct py_thread *pt, uintptr_t code)
{
	if (!code || load_ptr(code + L->ob_type) != code_type)
		return UNKNOWN_IDENT;
	uintptr_t filename = load_ptr(code + L->code_filename);
	uintptr_t qualname = load_ptr(code + L->code_qualname);
	int32_t first = load_i32(code + L->code_firstlineno);
	struct code_slot *c = &pt->code[(code >> 4) * 0x9e3779b97f4a7c15ull >> 55 & (CODE_SLOTS - 1)];
	if (c->code == code && c->filename == filename && c->qualname == qualname &&
	    c->firstlineno == first)
		return c->ident;
	char name[STR_MAX], file[STR_MAX];
	size_t nlen = copy_str(qualname, name, sizeof name);
	size_t flen = copy_str(filename, file, sizeof file);
	if (!nlen)
		return UNKNOWN_IDENT;
	uint64_t ident = ident_of(name, nlen, file, flen, first);
	name_once(pt, ident, name, nlen, file, flen, first);
	*c = (struct code_slot){ code, filename, qualname, first, ident };
	return ident;
}

/* Reads an unsigned varint of CPython's line tables: 6 bits a byte, bit
 * 6 set on every byte but the last. */
static unsigned read_varint(const uint8_t **p, const uint8_t *end)
{
	unsigned b = *(*p)++, val = b & 63, shift = 0;
	while ((b & 64) && *p < end && shift < 30) {
		b = *(*p)++;
		shift += 6;
		val |= (b & 63) << shift;
	}
	return val;
}

/* The line of the instruction at LASTI (code units) in CODE, from its
 * 3.11 location table: entries of a first byte (bit 7 set; a code in bits
 * 3-6; instructions covered - 1 in bits 0-2) and the code's operands.
 * Codes 0-9 and 10 keep the line, 11 and 12 add 1 and 2, 13 and 14 add a
 * signed varint, 15 has no line.  0: none. */
static uint32_t line_of(uintptr_t code, int32_t lasti)
{
	int64_t line = load_i32(code + L->code_firstlineno);
	if (lasti < 0)
		return line > 0 && line <= LINE_MAX_KEPT ? (uint32_t)line : 0;
	uintptr_t table = load_ptr(code + L->code_linetable);
	int64_t size = *(const int64_t *)(table + L->bytes_size);
	if (size <= 0 || size > LINETABLE_MAX)
		return 0;
	const uint8_t *p = (const uint8_t *)(table + L->bytes_data), *end = p + size;
	int64_t at = 0;
	while (p < end) {
		uint8_t head = *p;
		unsigned kind = head >> 3 & 15;
		int64_t next = at + (head & 7) + 1;
		const uint8_t *q = p + 1;
		if (kind == 13 || kind == 14) {
			unsigned u = read_varint(&q, end);
			line += (u & 1) ? -(int64_t)(u >> 1) : (int64_t)(u >> 1);
		} else if (kind == 11 || kind == 12) {
			line += (int64_t)kind - 10;
		}
		if (lasti < next)
			return kind == 15 || line <= 0 ? 0 : line > LINE_MAX_KEPT ? LINE_MAX_KEPT
										 : (uint32_t)line;
		at = next;
		/* On to the next entry's first byte. */
		for (p++; p < end && !(*p & 128); p++)
			;
	}
	return 0;
}

/* The line FRAME's code CODE (of IDENT) runs, remembered. */
static uint32_t frame_line(struct py_thread *pt, uintptr_t frame, uintptr_t code, uint64_t ident)
{
	uintptr_t prev = load_ptr(frame + L->frame_prev_instr);
	int64_t units = ((int64_t)prev - (int64_t)(code + L->code_instructions)) / 2;
	int32_t lasti = units < -1 ? -1 : units > INT32_MAX ? INT32_MAX : (int32_t)units;
	struct line_slot *s =
		&pt->line[((uint64_t)code * 0x9e3779b97f4a7c15ull ^
			   (uint64_t)lasti * 0xc2b2ae3d27d4eb4full) >> 54 & (LINE_SLOTS - 1)];
	if (s->code == code && s->ident == ident && s->lasti == lasti)
		return s->line;
	uint32_t line = line_of(code, lasti);
	*s = (struct line_slot){ code, ident, lasti, line };
	return line;
}

/* The calling thread's PyThreadState, or 0. */
static uintptr_t thread_state(void)
{
	const int32_t *tss = (const int32_t *)(runtime + L->runtime_tss_key);
	if (!tss[0])
		return 0;
	return (uintptr_t)pthread_getspecific((pthread_key_t)(uint32_t)tss[1]);
}

/* Reads the thread's Python frames into PT->w, innermost first (run by
 * culprit_guarded: a fault ends it, and PT->nw is then what was read). */
/* The calling thread's innermost Python frame, or 0. */
static uintptr_t current_frame(void)
{
	uintptr_t ts = thread_state();
	if (ts && L->frame_in_tstate)
		return load_ptr(ts + L->tstate_cframe);
	uintptr_t cframe = ts ? load_ptr(ts + L->tstate_cframe) : 0;
	return cframe ? load_ptr(cframe + L->cframe_current) : 0;
}

/* Whether frame F is an evaluation loop call's shim (3.12 on). */
static int is_shim(uintptr_t f)
{
	return L->entry_by_owner && *(const uint8_t *)(f + L->frame_owner) == L->owner_cstack;
}

static void walk(void *arg)
{
	struct py_thread *pt = arg;
	uintptr_t f = current_frame();
	/* Bounded in steps too: shims are not kept, and a damaged chain
	 * may loop. */
	for (int steps = 0; f && pt->nw < pt->max && steps < 2 * WALK_MAX;
	     f = load_ptr(f + L->frame_previous), steps++) {
		if (is_shim(f)) {
			/* An evaluation loop call's shim: the frame before
			 * it was the call's outermost. */
			if (pt->nw)
				pt->w[pt->nw - 1].entry = 1;
			continue;
		}
		uintptr_t code = load_ptr(f + L->frame_code);
		uint64_t ident = code_ident(pt, code);
		uint32_t line = 0;
		if (ident != UNKNOWN_IDENT)
			line = frame_line(pt, f, code, ident);
		else
			name_once(pt, UNKNOWN_IDENT, "<python ?>", 10, "", 0, 0);
		struct walked *w = &pt->w[pt->nw];
		w->key = ident << LINE_BITS | line;
		w->entry = !L->entry_by_owner && *(const uint8_t *)(f + L->frame_is_entry) != 0;
		pt->nw++;
	}
	pt->cut = f != 0;	/* the chain goes on past what was read */
}

/* ---- what a Python thread waits for ---------------------------------------- */

/* Python's threads wait on Python locks (a semaphore each) for every
 * reason: a Lock taken in two threads is contention, but Thread.join and
 * a future's result wait for other threads to finish (a join), and a
 * Condition (under Event, Queue, Barrier) for another thread to get
 * somewhere (a barrier, as a pthreads condition variable).  The standard
 * library's frames near the wait say which. */
#define WAIT_FRAMES 8	/* innermost Python frames looked at */

static const struct {
	const char *file;	/* the module's file name ends so */
	const char *qualname;
	enum culprit_idle_cause cause;
} stdlib_waits[] = {
	{ "/threading.py", "Thread.join", CULPRIT_IDLE_JOIN },
	{ "/threading.py", "Thread._wait_for_tstate_lock", CULPRIT_IDLE_JOIN },
	{ "/concurrent/futures/_base.py", "Future.result", CULPRIT_IDLE_JOIN },
	{ "/concurrent/futures/_base.py", "Future.exception", CULPRIT_IDLE_JOIN },
	{ "/concurrent/futures/_base.py", "wait", CULPRIT_IDLE_JOIN },
	{ "/concurrent/futures/_base.py", "as_completed", CULPRIT_IDLE_JOIN },
	{ "/multiprocessing/pool.py", "ApplyResult.get", CULPRIT_IDLE_JOIN },
	{ "/multiprocessing/pool.py", "ApplyResult.wait", CULPRIT_IDLE_JOIN },
	{ "/threading.py", "Condition.wait", CULPRIT_IDLE_BARRIER },
	{ "/threading.py", "Condition.wait_for", CULPRIT_IDLE_BARRIER },
	{ "/threading.py", "Semaphore.acquire", CULPRIT_IDLE_BARRIER },
};

struct wait_probe {
	enum culprit_idle_cause cause;
};

static int ends_with(const char *s, size_t n, const char *tail)
{
	size_t k = strlen(tail);
	return n >= k && memcmp(s + n - k, tail, k) == 0;
}

/* Reads the innermost frames (run by culprit_guarded): the first one of
 * the standard library's waits that is a join decides, else the first
 * that is a condition. */
static void probe_wait(void *arg)
{
	struct wait_probe *p = arg;
	int condition = 0;
	uintptr_t f = current_frame();
	for (int k = 0; f && k < WAIT_FRAMES; f = load_ptr(f + L->frame_previous), k++) {
		if (is_shim(f))
			continue;
		uintptr_t code = load_ptr(f + L->frame_code);
		if (!code || load_ptr(code + L->ob_type) != code_type)
			continue;
		char name[64], file[STR_MAX];
		size_t nlen = copy_str(load_ptr(code + L->code_qualname), name, sizeof name);
		size_t flen = copy_str(load_ptr(code + L->code_filename), file, sizeof file);
		for (size_t i = 0; i < sizeof stdlib_waits / sizeof *stdlib_waits; i++) {
			if (strlen(stdlib_waits[i].qualname) != nlen ||
			    memcmp(stdlib_waits[i].qualname, name, nlen) != 0 ||
			    !ends_with(file, flen, stdlib_waits[i].file))
				continue;
			if (stdlib_waits[i].cause == CULPRIT_IDLE_JOIN) {
				p->cause = CULPRIT_IDLE_JOIN;
				return;
			}
			condition = 1;
		}
	}
	if (condition)
		p->cause = CULPRIT_IDLE_BARRIER;
}

static enum culprit_idle_cause py_wait_cause(enum culprit_idle_cause cause, unsigned kind,
					     const void *object)
{
	(void)kind;
	(void)object;
	if (cause != CULPRIT_IDLE_LOCK || !py_self || !thread_state())
		return cause;
	struct wait_probe p = { cause };
	if (culprit_guarded(probe_wait, &p) < 0)
		return cause;
	return p.cause;
}

/* ---- the rewrite ---------------------------------------------------------- */

/* Whether F is a frame of the evaluation loop: its own code, or the
 * parts of it a compiler moved away (find_cold).  A return address may
 * be just past its call, the function's last instruction. */
static int is_eval(const struct culprit_frame *f)
{
	if (f->kind != MFILE_NODE_FRAME)
		return 0;
	uintptr_t pc = f->addr - !(f->flags & MFILE_NODE_EXACT);
	if (pc - eval_lo < eval_hi - eval_lo)
		return 1;
	for (int i = 0; i < ncold; i++)
		if (pc - cold[i].lo < cold[i].hi - cold[i].lo)
			return 1;
	return 0;
}

/* Splits PT->w into groups, one per evaluation loop call, innermost
 * first: group g is [gend[g - 1], gend[g]) (from 0 for the first).  The
 * last group ends where the chain does, marked or not. */
static void split_groups(struct py_thread *pt)
{
	pt->ngroups = 0;
	for (int i = 0; i < pt->nw; i++)
		if (pt->w[i].entry || i + 1 == pt->nw)
			pt->gend[pt->ngroups++] = i + 1;
}

/* Group NUMBER as [*FIRST, *END) in PT->w; 0 when there is none. */
static int group(const struct py_thread *pt, int number, int *first, int *end)
{
	if (number < 0 || number >= pt->ngroups)
		return 0;
	*first = number ? pt->gend[number - 1] : 0;
	*end = pt->gend[number];
	return 1;
}

/* Leaves out of FRAME[0..N) the evaluation loop's native frames that no
 * group replaced, and returns how many frames are left.  Such a frame has
 * no Python frame of its own to show: a call just entered or about to
 * leave (its frame not yet, or no longer, in the chain), or a chain that
 * could not be read.  Its time is its caller's, as C code's is, and no
 * context in any view is named after the interpreter's loop. */
static int drop_unreplaced(struct culprit_frame *frame, int n)
{
	int kept = 0;
	for (int i = 0; i < n; i++)
		if (!is_eval(&frame[i]))
			frame[kept++] = frame[i];
	return kept;
}

static int logical_frames(struct culprit_frame *frame, int n, int cap,
			  const struct culprit_frame *beyond, int nbeyond, int whole)
{
	struct py_thread *pt = py_self;
	if (!pt)
		return n;
	/* Where the evaluation loop's frames are, innermost first: looked
	 * up once (most samples of most threads have none). */
	int evals = 0, outer = 0;
	for (int i = 0; i < n && evals < WALK_MAX; i++)
		if (is_eval(&frame[i]))
			pt->evalpos[evals++] = i;
	if (!evals || evals == WALK_MAX)
		return n;
	for (int i = 0; i < nbeyond; i++)
		outer += is_eval(&beyond[i]);
	pt->nw = 0;
	pt->max = cap - n < WALK_MAX ? cap - n : WALK_MAX;
	if (pt->max <= 0 || culprit_guarded(walk, pt) < 0 || !pt->nw)
		return drop_unreplaced(frame, n);
	/* Match evaluation loop calls to groups.  With the whole stack and
	 * the whole chain, from the outermost: an innermost call just entered
	 * or about to leave may have no group yet, and the calls past these
	 * frames (a runtime's, under Python) take the outer groups.  Else from
	 * the innermost, as far as they go. */
	split_groups(pt);
	int shift = whole && !pt->cut ? pt->ngroups - evals - outer : 0;
	int total = n, first, end;
	for (int e = 0; e < evals; e++)
		if (group(pt, e + shift, &first, &end))
			total += end - first - 1;
	if (total > cap)
		return drop_unreplaced(frame, n);
	/* From the outermost end, in place: every frame becomes one or more,
	 * so what is written never overtakes what is still to be read. */
	int out = total, e = evals - 1;
	for (int i = n - 1; i >= 0; i--) {
		int eval = e >= 0 && pt->evalpos[e] == i;
		if (!eval || !group(pt, e-- + shift, &first, &end)) {
			frame[--out] = frame[i];
			continue;
		}
		/* The innermost frame of a group runs its line when its
		 * evaluation loop was interrupted. */
		uint8_t exact = frame[i].flags & MFILE_NODE_EXACT;
		for (int k = end - 1; k >= first; k--)
			frame[--out] = (struct culprit_frame){
				pt->w[k].key, CULPRIT_LOGICAL_PYTHON, MFILE_NODE_LOGICAL,
				(uint8_t)(k == first ? exact : 0)
			};
	}
	return drop_unreplaced(frame, total);
}

/* ---- set-up ------------------------------------------------------------- */

/* The executable segment holding ADDR: [*LO, *HI). */
struct segment_query {
	uintptr_t addr, lo, hi;
};

static int find_segment(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct segment_query *q = arg;
	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && q->addr - lo < hi - lo) {
			q->lo = lo;
			q->hi = hi;
			return 1;
		}
	}
	return 0;
}

/* Finds the parts of the evaluation loop that GCC moved out of it
 * (_PyEval_EvalFrameDefault.cold, in Debian's optimised build: some 13 KB
 * reached by hundreds of branches, with calls that run Python again).
 * They have unwind entries but no symbol, so they are found by the
 * branches: every jmp or jcc with a 32-bit offset in the loop's code
 * whose target is outside it, inside an unwind entry of the same
 * executable segment but not at its start (a tail call goes to a
 * function's start).  Entries that many branches reach are the loop's
 * own; bytes that only look like a branch land anywhere. */
static void find_cold(void)
{
	struct segment_query q = { eval_lo, 0, 0 };
	if (!dl_iterate_phdr(find_segment, &q))
		return;
	struct {
		uintptr_t lo, hi;
		unsigned hits;
	} seen[32];
	int nseen = 0;
	const uint8_t *code = (const uint8_t *)eval_lo;
	for (uintptr_t at = 0; at + 6 <= eval_hi - eval_lo; at++) {
		int32_t rel;
		uintptr_t next;
		if (code[at] == 0xe9) {
			memcpy(&rel, code + at + 1, 4);
			next = eval_lo + at + 5;
		} else if (code[at] == 0x0f && (code[at + 1] & 0xf0) == 0x80) {
			memcpy(&rel, code + at + 2, 4);
			next = eval_lo + at + 6;
		} else {
			continue;
		}
		uintptr_t target = next + (intptr_t)rel;
		if (target - eval_lo < eval_hi - eval_lo || target - q.lo >= q.hi - q.lo)
			continue;
		int k = 0;
		while (k < nseen && !(target - seen[k].lo < seen[k].hi - seen[k].lo))
			k++;
		if (k == nseen) {
			unw_proc_info_t pi;
			if (nseen == 32 ||
			    unw_get_proc_info_by_ip(unw_local_addr_space, target, &pi, NULL) < 0 ||
			    pi.start_ip == target || pi.end_ip <= pi.start_ip)
				continue;
			seen[nseen].lo = pi.start_ip;
			seen[nseen].hi = pi.end_ip;
			seen[nseen++].hits = 0;
		}
		seen[k].hits++;
	}
	for (int k = 0; k < nseen && ncold < COLD_MAX; k++)
		if (seen[k].hits >= COLD_BRANCHES) {
			cold[ncold].lo = seen[k].lo;
			cold[ncold++].hi = seen[k].hi;
		}
}

/* The address and size of symbol NAME, or 0. */
static uintptr_t symbol(const char *name, size_t *size)
{
	void *at = dlsym(RTLD_DEFAULT, name);
	Dl_info info;
	const ElfW(Sym) *sym = NULL;
	if (size)
		*size = at && dladdr1(at, &info, (void **)&sym, RTLD_DL_SYMENT) && sym
			? sym->st_size : 0;
	return (uintptr_t)at;
}

/* CPython's version as MAJOR.MINOR, from Py_Version (3.11 on) or the
 * string Py_GetVersion returns (any, and safe before the interpreter
 * starts).  Returns 0 when neither is there. */
static int python_version(unsigned *major, unsigned *minor)
{
	const unsigned long *hex = (const unsigned long *)symbol("Py_Version", NULL);
	if (hex) {
		*major = (unsigned)(*hex >> 24 & 0xff);
		*minor = (unsigned)(*hex >> 16 & 0xff);
		return 1;
	}
	const char *(*get)(void) = (const char *(*)(void))symbol("Py_GetVersion", NULL);
	const char *v = get ? get() : NULL;
	if (!v)
		return 0;
	char *dot;
	*major = (unsigned)strtoul(v, &dot, 10);
	*minor = *dot == '.' ? (unsigned)strtoul(dot + 1, NULL, 10) : 0;
	return 1;
}

static int py_init(void)
{
	size_t eval_size = 0, runtime_size = 0;
	eval_lo = symbol("_PyEval_EvalFrameDefault", &eval_size);
	if (!eval_lo)
		return 0;	/* not CPython */
	const char *off = getenv("CULPRIT_PYTHON");
	if (off && strcmp(off, "0") == 0)
		return 0;
	unsigned major = 0, minor = 0;
	if (!python_version(&major, &minor)) {
		culprit_log("CPython of an unknown version: Python frames are off (native frames only)");
		return 0;
	}
	for (size_t i = 0; i < sizeof py_layouts / sizeof *py_layouts; i++)
		if (py_layouts[i].major == major && py_layouts[i].minor == minor)
			L = &py_layouts[i];
	runtime = symbol("_PyRuntime", &runtime_size);
	code_type = symbol("PyCode_Type", NULL);
	str_type = symbol("PyUnicode_Type", NULL);
	if (!L) {
		culprit_log("CPython %u.%u: its frame layout is not one this culprit reads "
			    "(3.11 to 3.13); Python frames are off (native frames only)", major, minor);
		return 0;
	}
	if (!eval_size || !runtime || runtime_size < L->runtime_tss_key + 8 || !code_type ||
	    !str_type) {
		culprit_log("CPython %u.%u without the symbols culprit reads (_PyRuntime, "
			    "PyCode_Type, PyUnicode_Type): Python frames are off", major, minor);
		return 0;
	}
	eval_hi = eval_lo + eval_size;
	find_cold();
	/* A thread that waits for the GIL (its mutex or conditions) is
	 * idle for it, and the thread holding it is blamed. */
	culprit_wait_cause((const void *)(runtime + L->runtime_gil), L->gil_size, CULPRIT_IDLE_GIL);
	return 1;
}

static void py_thread_begin(void *cookie)
{
	(void)cookie;
	if (!py_self)
		py_self = culprit_map(sizeof *py_self);
}

static void py_thread_end(void)
{
	struct py_thread *pt = py_self;
	py_self = NULL;		/* a sample from here on reads nothing */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	culprit_unmap(pt, sizeof *pt);
}

/* A fork's child writes files of its own: the functions named in its
 * parent are named again. */
static void py_fork_child(void)
{
	if (py_self)
		memset(py_self->named, 0, sizeof py_self->named);
}

static const struct culprit_plugin python_plugin = {
	.name = "python",
	.abi = CULPRIT_PLUGIN_ABI,
	.init = py_init,
	.thread_begin = py_thread_begin,
	.thread_end = py_thread_end,
	.fork_child = py_fork_child,
	.logical_frames = logical_frames,
	.wait_cause = py_wait_cause,
};
CULPRIT_PLUGIN(python_plugin);
