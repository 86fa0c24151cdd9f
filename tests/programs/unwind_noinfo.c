/* unwind_noinfo.c - compiled with -fno-asynchronous-unwind-tables and
 * -fno-unwind-tables but with frame pointers: no .eh_frame entry. */
extern volatile double sink;
double leaf_work(long n);
double mid_noinfo(long n);

double mid_noinfo(long n)
{
	double r = leaf_work(n);
	sink += r;
	return r * 2;
}
