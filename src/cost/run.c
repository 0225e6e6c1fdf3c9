/* SPDX-License-Identifier: MIT */
/* The figures of one `gputally cost` run (run.h). */
#include "cost/run.h"

#include <math.h>

void cost_run_compute(struct cost_run *r)
{
	const struct cost_params *p = &r->p;
	const struct cost_longrun *lr = &r->lr;

	cost_longrun(p, &r->lr);
	r->nsens = cost_sensitivity(p, r->sens, COST_NSENS);
	if (r->nsens > COST_NSENS)
		r->nsens = COST_NSENS;
	r->nroi_sens = 0;
	if (!isnan(r->u_at)) {
		cost_roi(p, r->u_at, &r->roi);
		r->nroi_sens = cost_roi_sensitivity(p, r->u_at, r->roi_sens, COST_NROI_SENS);
		if (r->nroi_sens > COST_NROI_SENS)
			r->nroi_sens = COST_NROI_SENS;
	}
	r->u_job = isnan(r->u_at) ? 1 : r->u_at;
	cost_job_breakeven(p, r->u_job, &r->job_be);
	r->c_local_at_u = isnan(r->u_at) ? NAN : cost_local_per_useful_hour(p, r->u_at);
	r->c_local_job = cost_local_per_useful_hour(p, r->u_job);
	r->c_local_full = cost_local_per_useful_hour(p, 1);
	r->busy_energy_premium = lr->k * (lr->p_busy - lr->p_idle);
	r->job_local_cost = r->job_cloud_cost = r->job_billed_hours = NAN;
	if (!isnan(r->job_hours)) {
		double wall_h = r->job_hours / p->cloud_efficiency + p->cloud_cold_start_s / 3600;
		r->job_local_cost = p->local_per_job_fixed + r->job_hours * r->c_local_job;
		r->job_cloud_cost = cost_cloud_job(p, r->job_hours);
		r->job_billed_hours = cost_billed_hours(p, wall_h);
	}
	r->dep_per_year = p->hardware_price * p->gpu_share * (1 - p->residual_fraction) / p->lifetime_years;
	r->maint_per_year = p->maintenance_hours_per_year * p->labor_rate;
	r->u_star_num = lr->F + lr->k * lr->H * lr->p_idle;
	r->u_star_den = lr->H * (lr->c_cloud - lr->k * (lr->p_busy - lr->p_idle));
}
