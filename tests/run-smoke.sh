#!/bin/sh
# run-smoke.sh - real programs from Debian behave exactly as without
# culprit: same output, same errors, same status; every process measured.
. "${srcdir:-.}/tests/lib.sh"

seq 1 200000 | awk 'BEGIN { srand(7) } { print int(rand() * 1000000) }' > numbers.txt

# same NAME COMMAND...: output, errors and status match the plain run.
same() {
	local name=$1
	shift
	"$@" > plain.out 2> plain.err
	local plain=$?
	"$CULPRIT" run -q -o "m-$name" "$@" > prof.out 2> prof.err
	local got=$?
	check "$name: same standard output" cmp -s plain.out prof.out
	# culprit run's own last line is culprit's, not the program's: it is a
	# warning even with -q when the run lost 5% of its samples, which a
	# few dropped or vfork samples can be, among make's short processes.
	sed '$ { /^culprit: warning: measurements of /d; }' prof.err > prof-program.err
	check "$name: same standard error" cmp -s plain.err prof-program.err
	diff plain.out prof.out | head -n 5 | sed 's/^/# stdout: /'
	diff plain.err prof-program.err | head -n 5 | sed 's/^/# stderr: /'
	check "$name: same exit status ($plain)" [ "$got" = "$plain" ]
	local procs threads
	procs=$(ls "m-$name"/*.process 2> /dev/null | wc -l)
	threads=$(ls "m-$name"/*.thread 2> /dev/null | wc -l)
	note "$name: $procs processes, $threads threads measured"
	check "$name: every process measured, with its threads" \
		sh -c "[ $procs -ge 1 ] && [ $threads -ge $procs ]"
}

same sort sort -n numbers.txt
same sort-stdin sh -c 'sort -rn < numbers.txt | head -n 5'
same pipeline sh -c 'cat numbers.txt | sort -n | uniq -c | sort -rn | head -n 3; echo done'
same failing sh -c 'ls /no/such/place; exit 3'
if have xz; then
	same xz sh -c 'xz -T2 -c numbers.txt | xz -dc | md5sum'
else
	skip "xz: the same under culprit" "xz is not installed"
fi
PY=$(command -v python3 || true)
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
if [ -n "$PY" ]; then
	same python3-threads "$PY" -c '
import threading, hashlib
out = []
def work(n):
    h = hashlib.sha256()
    for i in range(n):
        h.update(b"culprit" * 50)
    out.append(h.hexdigest())
ts = [threading.Thread(target=work, args=(60000,)) for _ in range(3)]
for t in ts: t.start()
for t in ts: t.join()
print(sorted(out)[0])'
	f=$(ls m-python3-threads/*.thread | wc -l)
	check "python3-threads: the interpreter's threads are measured" [ "$f" -ge 4 ]
else
	skip "python3-threads: the same under culprit" "python3 is not installed"
fi
mkdir -p proj
for i in 1 2 3 4 5 6 7 8; do echo "int f$i(int x) { return x * $i; }" > proj/f$i.c; done
cat > proj/Makefile << 'MK'
OBJS = f1.o f2.o f3.o f4.o f5.o f6.o f7.o f8.o
all: libf.a
libf.a: $(OBJS)
	@ar rcs $@ $(OBJS)
	@echo built $@
%.o: %.c
	@$(CC) -O2 -c $< -o $@
clean:
	@rm -f $(OBJS) libf.a
MK
if have make cc; then
	make -s -C proj clean
	same make-j2 sh -c 'make -s -C proj clean && make -s -j2 -C proj'
else
	skip "make-j2: the same under culprit" "make or cc is not installed"
fi

done_testing
