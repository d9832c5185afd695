# Metric lists the ncu_diag passes share (sourced by run_warps.sh and run_persistent_waits.sh): the tensor
# pipe's counters, and the warp-stall breakdown per issued instruction.
NCU_TENSOR_METRICS=sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active
NCU_TENSOR_METRICS+=,sm__inst_executed_pipe_tensor_op_gmma.sum
NCU_STALL_METRICS=""
for s in barrier long_scoreboard wait math_pipe_throttle short_scoreboard mio_throttle lg_throttle dispatch_stall \
         no_instruction sleeping membar misc selected not_selected drain branch_resolving imc_miss tex_throttle; do
  NCU_STALL_METRICS+=${NCU_STALL_METRICS:+,}smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio
done
