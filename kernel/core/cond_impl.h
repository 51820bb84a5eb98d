/* Condition variables (private): what the rest of the kernel calls. */
#ifndef PRIORA_COND_IMPL_H
#define PRIORA_COND_IMPL_H

void conds_reset(void);

#endif /* PRIORA_COND_IMPL_H */
