/* libomp.c - a stand-in for LLVM's OpenMP runtime, built once by
 * tests/golden/regen.sh --elf into the committed tests/golden/elf/libomp.so.5
 * (its name makes culprit's built-in overhead rules treat it as a runtime)
 * and never run.  The entry points are libomp's own names. */
volatile long omp_sink;

__attribute__((noinline)) static void kmp_spin(long n)
{
	for (long i = 0; i < n; i++)
		omp_sink += i;
}

void __kmpc_for_static_init_4(int chunks);
void __kmpc_for_static_init_4(int chunks)
{
	kmp_spin(chunks);
}

void __kmpc_barrier(void);
void __kmpc_barrier(void)
{
	kmp_spin(10);
}
