/* fake_python.c - a program that looks like a CPython of a version the
 * plugin does not read (3.99): it exports the evaluation loop's name and
 * Py_Version, as an interpreter does, and the plugin must say in one line
 * that it stays off, and leave the program alone. */
#include <stdio.h>

const unsigned long Py_Version = 0x036300f0;	/* 3.99.0 */

int _PyEval_EvalFrameDefault(int n)
{
	return n + 1;
}

int main(void)
{
	printf("%d\n", _PyEval_EvalFrameDefault(41));
	return 0;
}
