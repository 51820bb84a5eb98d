/* The end of a failed PR_ASSERT (check.h): the port stops the system. */
#include "check.h"
#include "priora/port.h"

#if PR_CONFIG_ASSERT
void pr_assert_failed(const char *file, int line, const char *expr)
{
    pr_port_panic(file, line, expr);
    for (;;) /* pr_port_panic does not return; if a port's does, stop here */
        ;
}
#endif
