/*
 * PR_ASSERT: what must hold, as code. A failed assertion is a kernel bug,
 * never a user's error (users get error codes): the port stops with the
 * file, the line and the expression (port.h: pr_port_panic).
 *
 * Compiled in with PR_CONFIG_ASSERT=1 (the debug and sanitizer builds);
 * compiled out otherwise, expression and all, so that an assertion costs
 * nothing where costs are measured. An expression given to PR_ASSERT must
 * therefore have no side effect.
 */
#ifndef PRIORA_CHECK_H
#define PRIORA_CHECK_H

#include "priora/config.h"

#if PR_CONFIG_ASSERT
void pr_assert_failed(const char *file, int line, const char *expr) __attribute__((noreturn));
#define PR_ASSERT(cond) ((cond) ? (void)0 : pr_assert_failed(__FILE__, __LINE__, #cond))
#else
#define PR_ASSERT(cond) ((void)sizeof(!(cond))) /* not evaluated; its names count as used */
#endif

/* A branch that cannot be taken while the kernel's invariants hold. */
#define PR_UNREACHABLE() PR_ASSERT(!"unreachable")

#endif /* PRIORA_CHECK_H */
