// cxx.cc - C++ names: a namespace, a class, a template and an overload,
// for checking that names are demangled.  usage: cxx
#include <cstdio>

#include "work.h"

volatile double sink;

namespace geometry {
template <typename T> struct Grid {
	T cells;
	__attribute__((noinline)) double relax(int sweeps) const
	{
		double r = work_units(sweeps * cells);
		sink += r;	/* not pure: every call happens */
		return r;
	}
};
__attribute__((noinline)) double solve(const Grid<long> &g)
{
	double r = g.relax(100);
	sink += r;	/* after the call: no tail call, so solve keeps its frame */
	return r;
}
__attribute__((noinline)) double solve(int n)
{
	double r = work_units(n);
	sink += r;
	return r;
}
} // namespace geometry

int main()
{
	geometry::Grid<long> g{1500000};
	for (int i = 0; i < 4; i++) {
		sink += geometry::solve(g);
		sink += geometry::solve(50000000);
	}
	std::printf("cxx done\n");
	return 0;
}
