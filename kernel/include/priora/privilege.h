/*
 * Privileges and privilege groups (the semantics of HP-UX's privilege
 * groups: getprivgrp, setprivgrp).
 *
 * A task belongs to one privilege group, and holds the privileges its group
 * holds now. Group PR_GROUP_SYSTEM holds every privilege, for good; groups
 * 2 .. PR_CONFIG_PRIV_GROUPS hold none until a task with PR_PRIV_GROUPS
 * gives them some. A task created outside the kernel (the program's
 * initial code) or from an interrupt is in the system group unless its
 * attributes name another; a task created by a task is in its creator's
 * group unless they name another. Interrupts and code outside the kernel
 * act with every privilege.
 *
 * Every call that a missing privilege refuses returns the error that names
 * it, with nothing changed; the argument checks come first (an invalid id
 * is PR_EBADID whoever calls).
 */
#ifndef PRIORA_PRIVILEGE_H
#define PRIORA_PRIVILEGE_H

#include "priora/types.h"

typedef uint32_t pr_privs_t;

enum {
    /* Use real-time priorities: create a real-time task, set or change a
     * real-time priority (pr_task_create, pr_task_set_priority,
     * pr_task_rtprio). Refused: PR_EPRIV_RT. */
    PR_PRIV_RTPRIO = 1u << 0,
    /* Raise its own priority (a higher base or real-time priority, a lower
     * nice value, a new task above its own priority) or change another
     * task's (pr_task_set_priority, pr_task_rtprio, pr_task_set_nice,
     * pr_task_create). Refused: PR_EPRIV_PRIO. */
    PR_PRIV_SETPRIO = 1u << 1,
    /* Allocate a mutex whose ceiling is above its own base priority
     * (pr_sem_alloc; an npcs mutex's ceiling is PR_PRIO_MAX: nothing
     * preempts its holder). Refused: PR_EPRIV_CEILING. */
    PR_PRIV_CEILING = 1u << 2,
    /* Change a group's privileges, move a task to another group, create a
     * task in a group not its own (pr_priv_group_set, pr_task_set_group,
     * pr_task_create). Refused: PR_EPRIV_GROUP. */
    PR_PRIV_GROUPS = 1u << 3,
};
#define PR_PRIV_ALL ((pr_privs_t)0xF)

#define PR_GROUP_CREATOR 0 /* in pr_task_attr_t: the creator's group */
#define PR_GROUP_SYSTEM 1  /* every privilege, unchangeable */

/* Sets the privileges of group 2 .. PR_CONFIG_PRIV_GROUPS; the tasks in it
 * hold the new set from now on. Errors: PR_EINVAL (group out of range or
 * the system group, bits outside PR_PRIV_ALL), PR_EPRIV_GROUP. */
int pr_priv_group_set(int group, pr_privs_t privs);

/* Reads a group's privileges. Errors: PR_EINVAL (group out of range, NULL). */
int pr_priv_group_get(int group, pr_privs_t *privs);

/* Moves a task to group 1 .. PR_CONFIG_PRIV_GROUPS. Errors: PR_EBADID,
 * PR_ENOTALLOC, PR_EINVAL (group out of range), PR_EPRIV_GROUP. */
int pr_task_set_group(pr_id_t id, int group);

/* A task's group and the privileges it holds now. Errors: PR_EBADID,
 * PR_ENOTALLOC, PR_EINVAL (both NULL). */
int pr_task_privs(pr_id_t id, int *group, pr_privs_t *privs);

#endif /* PRIORA_PRIVILEGE_H */
