// throws.cc - C++ exceptions thrown through sampled frames: dive()
// recurses 24 levels to bottom(), which works and throws; main catches,
// 3000 times.  The unwinder of the exception and culprit's sample
// handler both walk these frames.  usage: throws
#include <cstdio>
#include <stdexcept>

#include "work.h"

volatile double sink;
volatile int escape = 1;	// 0 would make bottom() return

__attribute__((noinline)) void bottom()
{
	sink += work_units(100000);
	if (escape)
		throw std::runtime_error("back to the top");
}

__attribute__((noinline)) void dive(int depth)
{
	if (depth == 0)
		bottom();
	else
		dive(depth - 1);
	sink += depth;	// not a tail call: every level keeps its frame
}

__attribute__((noinline)) long throws()
{
	long n = 0;
	for (int i = 0; i < 3000; i++) {
		try {
			dive(24);
		} catch (const std::runtime_error &) {
			n++;
		}
	}
	return n;
}

int main()
{
	std::printf("throws: %ld caught\n", throws());
	return 0;
}
