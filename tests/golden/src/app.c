/* app.c - the program that tests/golden/fixture.c pretends to have
 * profiled.  Built once by tests/golden/regen.sh --elf into the committed
 * tests/golden/elf/app and never run: only its symbols and line table
 * matter, so that `culprit prof` names the fixture's addresses the same
 * way on every machine, whatever compiler builds culprit.
 *
 * The story the fixture tells: main runs a serial setup while two workers
 * wait, calls kernel() from a heavy (3/4) and a light (1/4) caller,
 * recurses, and spawns two workers that run an imbalanced loop through
 * the (stub) OpenMP runtime in libomp.c, with a tagged scheduler.
 */
#include <pthread.h>
#include <stddef.h>

volatile double sink;
void __kmpc_for_static_init_4(int chunks);
void __kmpc_barrier(void);
void schedule_chunk(long n);

static inline __attribute__((always_inline)) double work_units(long n)
{
	double x = 1.0;
	for (long i = 0; i < n; i++)
		x = x * 1.0000001 + 1e-9;
	return x;
}

__attribute__((noinline)) void kernel(long n)
{
	sink = work_units(n);
}

__attribute__((noinline)) void heavy_caller(void)
{
	kernel(300);
}

__attribute__((noinline)) void light_caller(void)
{
	kernel(100);
}

__attribute__((noinline)) void serial_setup(long n)
{
	double x = 0;
	for (long i = 0; i < n; i++)
		x += (double)i;
	sink = x;
}

__attribute__((noinline)) void recurse(int depth)
{
	if (depth > 0)
		recurse(depth - 1);
	else
		kernel(50);
	sink += depth;
}

__attribute__((noinline)) void *worker(void *arg)
{
	long id = (long)arg;
	__kmpc_for_static_init_4(4);
	for (int chunk = 0; chunk < 4; chunk++) {
		schedule_chunk(chunk);
		kernel(id == 1 ? 300 : 100);
	}
	__kmpc_barrier();
	return NULL;
}

__attribute__((noinline)) void spawn_workers(pthread_t *t)
{
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)(i + 1));
}

int main(void)
{
	pthread_t t[2];
	serial_setup(200);
	spawn_workers(t);
	heavy_caller();
	light_caller();
	recurse(3);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}

#line 1 "culprit:overhead/scheduling"
__attribute__((noinline)) void schedule_chunk(long n)
{
	sink += (double)n;
}
