/* SPDX-License-Identifier: MIT */
/*
 * One run of `gputally cost`: every figure of the owning-versus-renting
 * model for one set of parameters, worked out once by cost_run_compute()
 * so that its writers (report/cost_out.c: text, JSON, --explain) only
 * render them.
 */
#ifndef COST_RUN_H
#define COST_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "cost/catalog.h"
#include "cost/model.h"

struct cost_run {
	/* inputs: the parameters, --utilization and --job-hours (NAN: not given) */
	struct cost_params p;
	double u_at;
	double job_hours;
	/* the long run, its break-even and the sensitivity of u* */
	struct cost_longrun lr;
	struct cost_sens sens[COST_NSENS];
	size_t nsens;
	/* the job-length break-even, at u_job: u_at, else 1 (the best case for owning) */
	double u_job;
	struct cost_job_be job_be;
	/* the return on investment at u_at (only when given) */
	struct cost_roi roi;
	struct cost_sens roi_sens[COST_NROI_SENS];
	size_t nroi_sens;
	/* owned cost per useful hour C_L(u) at u_at (NAN without), at u_job, at full use */
	double c_local_at_u, c_local_job, c_local_full;
	/* a busy hour's electricity over an idle one's: k x (P_busy - P_idle) */
	double busy_energy_premium;
	/* one job of job_hours useful hours (NAN without --job-hours): owned, rented, billed hours */
	double job_local_cost, job_cloud_cost, job_billed_hours;
	/* the terms --explain writes out: depreciation and maintenance a year,
	 * and u* = u_star_num / u_star_den */
	double dep_per_year, maint_per_year, u_star_num, u_star_den;
	/* --cloud-catalog (catalog NULL without it): the GPU model looked up,
	 * where that name came from ("--gpu", "the profile's name"), the rows
	 * it matched and whether their median is cloud_hourly_rate */
	const struct cloud_catalog *catalog;
	char cat_gpu[96];
	const char *cat_gpu_from;
	struct catalog_pick cat_pick;
	bool cat_used;
};

/* Fill every figure of r from r->p, r->u_at and r->job_hours. */
void cost_run_compute(struct cost_run *r);

#endif
