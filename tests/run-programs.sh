#!/bin/sh
# run-programs.sh - the real-program corpus: programs people run with
# several threads or processes, from Debian packages (setup.sh installs
# them; a missing one is skipped, not failed).  Under culprit each must
# behave as without it (the same output where the output is
# deterministic, always the same status), and its profile must be usable:
# culprit prof succeeds, at least 95% of the samples have their whole
# path, and the code known to do the work is among the five procedures
# with the most exclusive work.  Run it alone: make check
# TESTS=tests/run-programs.sh.
. "${srcdir:-.}/tests/lib.sh"
have sqlite3 || skip_all "the sqlite3 program is not installed"

# Inputs: numbers, text, a database, a C file, an image.
seq 1 400000 | awk 'BEGIN { srand(11) } { print int(rand() * 1000000), "line", $1 }' > data.txt
sqlite3 data.db "CREATE TABLE t (a INTEGER, b TEXT);
	WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 300000)
	INSERT INTO t SELECT (i * 7919) % 100003, hex(randomblob(8)) FROM k;"
cat > big.c << 'C'
#include <stdio.h>
#define F(n) static int f##n(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * n % 7; return s; }
F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8) F(9) F(10) F(11) F(12) F(13) F(14) F(15) F(16)
int main(void) { printf("%d\n", f1(3) + f2(4) + f3(5) + f16(6)); return 0; }
C
mkdir -p proj
for i in 1 2 3 4 5 6; do cp big.c "proj/u$i.c"; done
printf 'all: u1.o u2.o u3.o u4.o u5.o u6.o\n%%.o: %%.c\n\t@$(CC) -O2 -c $< -o $@\n' > proj/Makefile

# program NAME HOT DET COMMAND...: runs COMMAND (a shell line) plainly and
# under culprit and checks the above; HOT is an extended regular
# expression for one of the top five "procedure module" names, or for the
# module with the most work (a compiler's work is spread over many
# procedures); DET is 1 when the output must be the same byte for byte.
program() {
	local name=$1 hot=$2 det=$3
	shift 3
	sh -c "$1" > plain.out 2> /dev/null
	local plain=$?
	"$CULPRIT" run -q -o "m-$name" sh -c "$1" > prof.out 2> prof.err
	local got=$?
	[ "$det" = 1 ] && check "$name: the same output" cmp -s plain.out prof.out
	check "$name: the same status ($plain)" [ "$got" = "$plain" ]
	if ! "$CULPRIT" prof -q -o "$name.db" "m-$name" 2> prof.err; then
		not_ok "$name: culprit prof: $(head -n 1 prof.err)"
		return
	fi
	local whole top
	whole=$(sql "$name.db" "SELECT round(100 - coalesce(sum(percent), 0), 1)
		FROM measurement_quality WHERE item IN ('samples:partial', 'samples:truncated')")
	top=$(sql "$name.db" "SELECT procedure || ' ' || coalesce(module, '') FROM procedure_metrics
		WHERE event = 'cputime' AND metric = 'work' ORDER BY exclusive DESC LIMIT 5;
		SELECT 'module ' || module FROM procedure_metrics WHERE event = 'cputime'
		AND metric = 'work' GROUP BY module ORDER BY sum(exclusive) DESC LIMIT 1")
	note "$name: $whole% whole paths; top: $(echo "$top" | sed 's|/.*/||' | tr '\n' ';')"
	check "$name: at least 95% of the samples have their whole path ($whole%)" at_least "$whole" 95
	check "$name: the work is where it is known to be ($hot)" \
		sh -c "echo \"\$1\" | grep -Eq \"\$2\"" - "$top" "$hot"
}

# want PROGRAM...: whether every PROGRAM is installed; skips NAME if not.
want() {
	local name=$1
	shift
	for p in "$@"; do
		command -v "$p" > /dev/null 2>&1 && continue
		skip "$name: real-program corpus" "$p is not installed"
		return 1
	done
}

want xz xz && program xz 'lzma|liblzma' 1 'xz -T2 -6 -c data.txt | xz -dc | md5sum'
want zstd zstd && program zstd 'ZSTD|zstd' 1 'zstd -q -T2 -12 -c data.txt | zstd -qdc | md5sum'
want pigz pigz && program pigz 'deflate|longest_match|libz' 1 'pigz -p 2 -9 -c data.txt | pigz -dc | md5sum'
want lbzip2 lbzip2 && program lbzip2 'lbzip2|sort|encode|bucket|bwt|divsuf' 1 \
	'lbzip2 -n 2 -9 -c data.txt | lbzip2 -n 2 -dc | md5sum'
want sort sort && program sort-parallel 'sort' 1 \
	'sort --parallel=2 -S 8M -k1,1n -k3 data.txt | md5sum'
want sqlite3 sqlite3 && program sqlite3 'sqlite3' 1 \
	'sqlite3 data.db "SELECT a % 97, count(*), sum(length(b)) FROM t GROUP BY 1 ORDER BY 3 DESC LIMIT 3; SELECT count(*) FROM t x JOIN t y ON x.a = y.a WHERE x.rowid < 40000"'
if want python3 python3; then
	program python3-threads 'sha256|SHA256|PyEval|python|libcrypto' 1 "python3 -c '
import threading, hashlib
out = []
def work(n):
    h = hashlib.sha256()
    for i in range(n): h.update(b\"culprit\" * 40)
    out.append(h.hexdigest())
ts = [threading.Thread(target=work, args=(150000,)) for _ in range(2)]
[t.start() for t in ts]; [t.join() for t in ts]; print(sorted(out)[0])'"
	program python3-processes 'PyEval|python|long|mul|pow|_Py' 1 "python3 -c '
import multiprocessing as mp
def f(n): return sum(i * i % 7 for i in range(n))
if __name__ == \"__main__\":
    with mp.Pool(2) as p: print(sum(p.map(f, [300000] * 8)))'"
fi
want make-j2 make cc && program make-j2 'cc1|libLLVM|clang' 1 \
	'make -s -B -C proj -j2 > /dev/null && ls proj/*.o | wc -l'
# gcc on a file of 200 functions, about 0.6 s of compiling: big.c alone
# gives some 30 samples, and the one or two of them taken in the driver
# as it vforks (partial: the child borrows the parent's stack) were 3 to
# 8% of them.
{
	echo '#define F(n) int f##n(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * n % 7 + (s >> 3) * (i ^ n); return s; }'
	i=1
	while [ $i -le 200 ]; do printf 'F(%d) ' $i; i=$((i + 1)); done
	echo
	echo 'int main(void) { return f1(3) + f200(4); }'
} > many.c
want gcc gcc && program gcc 'cc1|libbfd|ld\\.bfd' 1 'gcc -O2 -o /dev/null many.c && echo built'
if want convert convert; then
	convert -size 600x600 plasma:fractal -seed 7 img.png 2> /dev/null
	program convert 'Resize|Filter|MagickCore|Magick|libgomp|omp' 0 \
		'OMP_NUM_THREADS=2 convert img.png -resize 1800x1800 -blur 0x3 png:- | wc -c > /dev/null; echo done'
fi
want stress-ng stress-ng && program stress-ng 'stress|fft|cpu' 0 \
	'stress-ng --cpu 2 --cpu-method fft --timeout 2 --quiet'
want openssl openssl && program openssl 'sha256|SHA256|libcrypto' 0 \
	'openssl speed -multi 2 -seconds 1 sha256 > /dev/null 2>&1; echo done'

done_testing
