/* unwind_badrbp.S - bad_rbp_spin(rounds, unreadable) spins with %rbp
 * alternately the real frame pointer and an unreadable address, while its
 * unwind information computes the frame from %rbp.  A long first phase
 * with the good pointer makes sure the unwinder's cache learns that the
 * loop is a standard frame; samples in the bad phases then make it read
 * through the bad pointer.  (Had the first sample seen the bad pointer,
 * libunwind would cache the frame as unusual and validate every read.) */
	.text
	.globl bad_rbp_spin
	.type bad_rbp_spin, @function
bad_rbp_spin:
	.cfi_startproc
	push %rbp
	.cfi_def_cfa_offset 16
	.cfi_offset rbp, -16
	mov %rsp, %rbp
	.cfi_def_cfa_register rbp
	mov %rbp, %r8
	mov %rsi, %r9
	mov $100000000, %rcx	# the long good phase
	jmp 1f
2:	mov $300000, %rcx
1:	dec %rcx
	jnz 1b
	xchg %r8, %r9
	mov %r8, %rbp
	dec %rdi
	jnz 2b
	mov %rsp, %rbp
	pop %rbp
	.cfi_def_cfa rsp, 8
	ret
	.cfi_endproc
	.size bad_rbp_spin, .-bad_rbp_spin
	.section .note.GNU-stack,"",@progbits
