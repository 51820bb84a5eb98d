/* Protocol numbers to policy modules. */
#include "policy.h"

const pr_policy_t *policy_of(pr_protocol_t protocol)
{
    switch (protocol) {
    case PR_PROTOCOL_NONE: return &pr_policy_none;
    case PR_PROTOCOL_PIP:  return &pr_policy_pip;
    }
    return NULL;
}
