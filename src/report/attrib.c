/* SPDX-License-Identifier: MIT */
/*
 * Who spent it: the window's GPU time, useful time, energy and owned cost
 * split by user, account (Slurm's), job, task, container and process (docs/cost-model.md
 * "Who spent it").  Every figure is computed here, once (a compute step of
 * report_compute()); attrib_out.c only renders the rows.
 */
#include "report/report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/hashidx.h"
#include "util/xalloc.h"

const char *const attrib_by_name[AB__COUNT] = {
	[AB_USER] = "user", [AB_ACCOUNT] = "account", [AB_JOB] = "job", [AB_TASK] = "task", [AB_CTR] = "container", [AB_PROC] = "process",
};


/* A GPU's useful seconds per utilization-second (1 when it has none): a
 * process's busy_s, a share of utilization, becomes a share of the GPU's
 * useful time (the one definition of busy, docs/states.md "Busy"). */
static double useful_per_util(const struct analysis *an, int gi)
{
	double b;

	if (gi < 0 || gi >= an->tl.ngpus)
		return 1;
	b = an->gpus[gi].busy_s;
	return b > 0 ? analysis_useful_s(an, gi, NULL, NULL) / b : 1;
}

/* useful_per_util() of each GPU, worked out once: it walks the trace
 * joins, and each owner asked it again. */
static double *upu_table(const struct analysis *an)
{
	double *t = xcalloc(an->tl.ngpus > 0 ? (size_t)an->tl.ngpus : 1, sizeof(*t));

	for (int g = 0; g < an->tl.ngpus; g++)
		t[g] = useful_per_util(an, g);
	return t;
}

static double upu_of(const struct analysis *an, const double *upu, int gi)
{
	return gi < 0 || gi >= an->tl.ngpus ? 1 : upu[gi];
}

/* The key of process p in dimension d, "" when it was not said. */
static void key_of(char *buf, size_t cap, const struct analysis *an, const struct proc_stat *p, int d, bool tasks)
{
	char gn[16];

	switch (d) {
	case AB_USER:
		snprintf(buf, cap, "%s", p->user);
		break;
	case AB_JOB:
		snprintf(buf, cap, "%s", p->job);
		break;
	case AB_ACCOUNT:	/* only batch jobs name one (sacct's Account) */
		buf[0] = '\0';
		break;
	case AB_TASK:
		snprintf(buf, cap, "%s", tasks ? p->name : p->task);
		break;
	case AB_CTR:
		snprintf(buf, cap, "%s", p->ctr);
		break;
	default:
		if (p->pid >= 0)
			snprintf(buf, cap, "GPU %s pid %" PRId64 "%s%s", analysis_gpu_num(an, p->gpu, gn, sizeof(gn)),
				 p->pid, p->name[0] ? " " : "", p->name);
		else
			snprintf(buf, cap, "GPU %s pid ?%s%s", analysis_gpu_num(an, p->gpu, gn, sizeof(gn)),
				 p->name[0] ? " " : "", p->name);
	}
}

static int row_cmp(const void *a, const void *b)
{
	const struct attrib_row *x = a, *y = b;

	if (x->cost != y->cost)
		return x->cost > y->cost ? -1 : 1;
	if (x->held_s != y->held_s)
		return x->held_s > y->held_s ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* A remainder that is only rounding (the rows summed in another order) is 0. */
static double rest(double total, double sum)
{
	double d = total - sum;

	return fabs(d) <= 1e-9 * (fabs(total) > 1 ? fabs(total) : 1) ? 0 : d;
}

/* One owner's figures (a process, a task label or a batch job), before they are summed per key. */
struct owner {
	char key[sizeof(((struct attrib_row *)0)->key)];
	double held_s, useful_s, energy_j, reported_energy_j;
	bool job;		/* counted as a job by the cost model (its per-job charge) */
};

/* A batch job's useful seconds: its busy time on each GPU, as a share of that GPU's useful time. */
static double job_useful(const struct analysis *an, const double *upu, const struct an_job *j)
{
	double u = 0;

	if (!j->gpu_busy_s)
		return 0;
	for (int g = 0; g < an->tl.ngpus; g++)
		if (j->gpu_busy_s[g] > 0)
			u += j->gpu_busy_s[g] * upu_of(an, upu, g);
	return u;
}

/* Process i of the analysis as an owner of dimension d. */
static void proc_owner(const struct report *r, const double *upu, size_t i, int d, bool tasks, struct owner *o)
{
	const struct analysis *an = r->an;
	const struct proc_stat *p = &an->procs[i];
	bool is_task = p->pid == PID_TASK;

	memset(o, 0, sizeof(*o));
	key_of(o->key, sizeof(o->key), an, p, d, tasks);
	o->held_s = p->share_s;
	o->useful_s = p->busy_s * upu_of(an, upu, p->gpu);
	o->energy_j = p->energy_j;
	o->reported_energy_j = NAN;
	o->job = (r->jobs_from_processes && !is_task) || (r->jobs_from_tasks && is_task);
}

/*
 * The owners of dimension d: batch jobs for users, accounts and jobs when there are
 * any (Slurm's accounting says who was given the GPUs), task labels for
 * tasks when there are any, else the processes.  Returns how many.
 */
static size_t owners(const struct report *r, const double *upu, int d, bool tasks, struct owner *o,
		     const char **none)
{
	const struct analysis *an = r->an;
	size_t n = 0;

	*none = "no process seen";
	if (an->njobs && (d == AB_USER || d == AB_ACCOUNT || d == AB_JOB)) {
		*none = "no job seen";
		for (size_t i = 0; i < an->njobs; i++) {
			const struct an_job *j = &an->jobs[i];
			if (!(j->held_s > 0))
				continue;	/* outside the telemetry's time: counted apart */
			memset(&o[n], 0, sizeof(o[n]));
			snprintf(o[n].key, sizeof(o[n].key), "%s", d == AB_USER ? j->user : d == AB_ACCOUNT ? j->account : j->id);
			o[n].held_s = j->held_s;
			o[n].useful_s = job_useful(an, upu, j);
			o[n].energy_j = j->energy_j;
			o[n].reported_energy_j = j->reported_energy_j;
			n++;
		}
		return n;
	}
	if (d == AB_TASK && tasks)
		*none = "no task seen";
	for (size_t i = 0; i < an->nprocs; i++) {
		/* task labels own the task split when there are any; every
		 * other split is by the processes */
		if ((an->procs[i].pid == PID_TASK) != (d == AB_TASK && tasks))
			continue;
		proc_owner(r, upu, i, d, tasks, &o[n++]);
	}
	return n;
}

/* Its energy (the profile's estimate where the energy is) and its part of the owned cost, added up as cost_window() does. */
static double owner_cost(const struct report *r, const struct owner *o, double *energy)
{
	double covered = r->covered_h * 3600, busy = r->busy_h * 3600;
	const struct cost_window *w = &r->win;

	*energy = r->attrib.energy_estimated ? (r->params.busy_power_w * o->useful_s +
						r->params.idle_power_w * (o->held_s - o->useful_s))
					     : o->energy_j;
	return (covered > 0 ? w->local_fixed * o->held_s / covered : 0) +
	       (r->energy_j > 0 ? w->local_energy * *energy / r->energy_j : 0) +
	       (busy > 0 ? w->local_cooling * o->useful_s / busy : 0) +
	       (o->job ? r->params.local_per_job_fixed : 0);
}

struct row_key {
	const struct attrib_row *rows;
	const char *key;
};

static bool row_eq(const void *ctx, size_t k)
{
	const struct row_key *rk = ctx;

	return !strcmp(rk->rows[k].key, rk->key);
}

/*
 * One dimension: each owner's share of the window's figures, summed per key,
 * then the part no owner held.  The owned cost is split part by part, as
 * cost_window() adds it up: the fixed part by GPU time held, electricity by
 * energy, cooling by useful time, the per-job charge by the jobs counted.
 */
static void one_dim(struct report *r, const double *upu, int d, bool tasks)
{
	const struct analysis *an = r->an;
	struct report_attrib *a = &r->attrib;
	double covered = r->covered_h * 3600, busy = r->busy_h * 3600;
	const struct cost_window *w = &r->win;
	size_t cap = an->nprocs + an->njobs + 1, no, n = 0;
	struct owner *o = xcalloc(cap, sizeof(*o));
	struct attrib_row *rows = xcalloc(cap, sizeof(*rows)), sum = { 0 };
	struct hashidx by_key = { 0 };	/* rows by key: a scan of the rows per owner is quadratic */
	const char *none;

	no = owners(r, upu, d, tasks, o, &none);
	for (size_t i = 0; i < no; i++) {
		struct attrib_row *row = NULL;
		double energy, cost;
		if (o[i].key[0])
			a->known[d] = true;
		else
			/* a batch job that names no account has none; a
			 * process names none, so its account is unknown */
			snprintf(o[i].key, sizeof(o[i].key), "%s", d == AB_USER ? "(unknown user)" :
				 d == AB_ACCOUNT ? (an->njobs ? "(no account)" : "(unknown account)") : "(none)");
		uint64_t h = hash_bytes(HASH_SEED, o[i].key, strlen(o[i].key));
		struct row_key rk = { rows, o[i].key };
		size_t k = hashidx_find(&by_key, h, row_eq, &rk);
		if (k != HASHIDX_NONE)
			row = &rows[k];
		if (!row) {
			hashidx_add(&by_key, h, n);
			row = &rows[n++];
			snprintf(row->key, sizeof(row->key), "%s", o[i].key);
			row->reported_energy_j = NAN;
		}
		if (!isnan(o[i].reported_energy_j))
			row->reported_energy_j = (isnan(row->reported_energy_j) ? 0 : row->reported_energy_j) +
						 o[i].reported_energy_j;
		cost = owner_cost(r, &o[i], &energy);
		row->nprocs++;
		row->held_s += o[i].held_s;
		row->useful_s += o[i].useful_s;
		row->energy_j += energy;
		row->cost += cost;
		sum.held_s += o[i].held_s;
		sum.useful_s += o[i].useful_s;
		sum.energy_j += energy;
		sum.cost += cost;
	}
	free(o);
	hashidx_release(&by_key);
	qsort(rows, n, sizeof(*rows), row_cmp);
	/* what no owner held: the rest of each total, its own line */
	rows[n].none = true;
	rows[n].reported_energy_j = NAN;
	snprintf(rows[n].key, sizeof(rows[n].key), "%s", none);
	rows[n].held_s = rest(covered, sum.held_s);
	rows[n].useful_s = rest(busy, sum.useful_s);
	rows[n].energy_j = rest(r->energy_j, sum.energy_j);
	rows[n].cost = rest(w->local_cost, sum.cost);
	a->rows[d] = rows;
	a->nrows[d] = n + 1;
	a->from_jobs[d] = an->njobs && (d == AB_USER || d == AB_ACCOUNT || d == AB_JOB);
}

void report_attrib_compute(struct report *r)
{
	const struct analysis *an = r->an;
	bool tasks = false;
	double *upu;

	memset(&r->attrib, 0, sizeof(r->attrib));
	/* each process's owned cost, for the Processes tables too: its row of
	 * the split below (NAN where there is no split) */
	free(r->proc_local_cost);
	r->proc_local_cost = NULL;
	if (an->nprocs) {
		r->proc_local_cost = xcalloc(an->nprocs, sizeof(double));
		for (size_t i = 0; i < an->nprocs; i++)
			r->proc_local_cost[i] = NAN;
	}
	if ((!an->nprocs && !an->njobs) || r->covered_h <= 0)
		return;
	/* report --db over minutes stored before v7: a process's GPU time
	 * charged is unknown (NAN), not 0, and no split of it would add up */
	for (size_t i = 0; i < an->nprocs; i++)
		if (isnan(an->procs[i].share_s)) {
			r->attrib.unknown_why = "minutes stored before schema v7 keep no process's share of its GPU; "
						"report on the files, or ingest them into a new store, to split them";
			return;
		}
	for (size_t i = 0; i < an->nprocs; i++)
		tasks |= an->procs[i].pid == PID_TASK;
	r->attrib.energy_estimated = r->energy_source && !strcmp(r->energy_source, "profile estimate");
	for (size_t i = 0; i < an->njobs; i++)
		r->attrib.jobs_outside += !(an->jobs[i].held_s > 0);
	upu = upu_table(an);
	for (size_t i = 0; i < an->nprocs; i++) {
		struct owner o;
		double energy;
		proc_owner(r, upu, i, AB_PROC, tasks, &o);
		r->proc_local_cost[i] = owner_cost(r, &o, &energy);
	}
	for (int d = 0; d < AB__COUNT; d++)
		one_dim(r, upu, d, tasks);
	free(upu);
	r->attrib.known[AB_PROC] = true;
	for (int d = 0; d < AB__COUNT; d++) {
		struct report_attrib *a = &r->attrib;
		size_t n = a->nrows[d] - 1;	/* the owners' rows, before the none row */
		/* the short tables: the dimensions with a key said, and the
		 * processes when no user, job or container was said */
		a->show[d] = d == AB_PROC ? !(a->known[AB_USER] || a->known[AB_JOB] || a->known[AB_CTR]) : a->known[d];
		/* the text's top rows, the rest in one line, and the total */
		a->top[d] = n > ATTRIB_TEXT_TOP + 1 ? ATTRIB_TEXT_TOP : n;
		for (size_t k = 0; k <= n; k++) {
			const struct attrib_row *row = &a->rows[d][k];
			struct attrib_row *into[2] = { &a->total[d], k >= a->top[d] && k < n ? &a->more[d] : NULL };
			for (int m = 0; m < 2; m++) {
				if (!into[m])
					continue;
				into[m]->held_s += row->held_s;
				into[m]->useful_s += row->useful_s;
				into[m]->energy_j += row->energy_j;
				into[m]->cost += row->cost;
				into[m]->nprocs += row->nprocs;
			}
		}
		snprintf(a->total[d].key, sizeof(a->total[d].key), "total");
		snprintf(a->more[d].key, sizeof(a->more[d].key), "%zu more", n - a->top[d]);
		a->total[d].reported_energy_j = a->more[d].reported_energy_j = NAN;
	}
}

void report_attrib_release(struct report *r)
{
	for (int d = 0; d < AB__COUNT; d++)
		free(r->attrib.rows[d]);
	memset(&r->attrib, 0, sizeof(r->attrib));
	free(r->proc_local_cost);
	r->proc_local_cost = NULL;
}

