/*
 * void host_switch(void **save_sp, void *load_sp)
 *
 * Saves the callee-saved registers of the System V x86-64 ABI on the current
 * stack, stores the stack pointer in *save_sp, loads load_sp and pops the
 * registers saved there; `ret` then resumes whoever saved that stack (or the
 * entry address pr_port_context_init put there). Caller-saved registers need
 * no saving: the caller of host_switch already assumes they are clobbered.
 */
    .text
    .globl host_switch
    .type host_switch, @function
host_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size host_switch, .-host_switch
    .section .note.GNU-stack,"",@progbits
