#!/usr/bin/env bash
# The measurements written for a lent GPU (stops 62-83), by name: stop 82 ran the queued ones (alu hot robust,
# v85-v88, moeblind regsa sfumix wrapped, small copyw moe layout, alone, barrier) on the H200; stop 87 the ones queued
# since (v89 onewave streamfma v90, onewave twice). Queued now: v91 (stop 88; an H100 ran it at stop 89, kept in
# h100_validation91/, so the H200 run is what stays queued).
# With no step named it runs nothing and lists the steps:
#
#   OUT=... bash benchmarks/device/queued.sh v75 v76 lone    # the steps named (the device tool sets OUT; a call
#                                                            # may run 10 minutes)
#
# alu:  the instruction-form probe (stop 81: `benchmarks/calibrate/run.py --only alu_forms,cuda_core,sfu`:
#       chains of FMAs of three registers (the profile's cuda_flops_per_s) against FMAs of constants, adds and
#       multiplies, libdevice's logf, integer shift-xor-multiply rounds and compare-selects, each with its
#       loop's SASS count; under a minute, either GPU); its file goes to benchmarks/data/calibration_alu_forms.json
#       (an H100's: calibration_alu_forms_h100.json), read by `python benchmarks/probe_report.py alu_forms
#       [--data FILE]`: whether the CUDA cores issue a polynomial's instructions faster than the FMA chain's
#       (Liger's KL divergence runs at 1.2x+ the profile's rate, docs/known-gaps.md);
# hot:  the hot-atomics probe (stop 79: `benchmarks/calibrate/run.py --only atomics_hot`: 16M tl.atomic_add of
#       ones at random bins, 1 to 64M bins, int32 and fp32, and since stop 80 relaxed adds at 1 / 32 / 1,024 / 1M
#       bins; under a minute, either GPU; an H100 ran it at stop 80, without the relaxed points); its file goes
#       to benchmarks/data/calibration_atomics_hot.json (an H100's: calibration_atomics_hot_h100.json), read by
#       `python benchmarks/probe_report.py atomics_hot [--data FILE]` and fitted by
#       `analysis.atomics_hot_fields` (l2_atomic_slices, atomic_same_address_s / _int_s of the profile);
# robust: the survey's robustness set (stop 79: `run_gpu.py --set robust`, 41 launches of k_robust.py predicted
#       before timing in benchmarks/data/survey_triton/robust_predicted_before_measuring.json; a few minutes,
#       either GPU); its file robust/robust_h200.jsonl (an H100's robust_h100.jsonl) goes to
#       benchmarks/data/survey_triton/, read by `python benchmarks/survey_triton/score.py --set robust`;
# c62:  the NCU L2 set `crowded62` (the latency-paced rule's blind test), with the four coalescer / fabric
#       counters of the blind56 row, as run 1 (about 2.5 minutes);
# v74, v75, v76, v77, v81: validation 74 (the same 16 launches timed), validation 75 (lone K loops against
#       their dots), validations 76, 77 and 81 (the fourteenth, fifteenth and seventeenth random samples, stops
#       65-67), up to 2.5 minutes each (all measured on the H200; v81, stop 68, decided stop 57's
#       write-back rule blind, `--recorded-file predicted_write_back.json` against `--recorded`);
# v82:  validation 82 (stop 68: register spills at random, predicted with stop 67's and stop 68's frame pass for
#       both the h200 and the h100 profile), about 2 minutes; on any GPU: an H100's folder is h100_validation82/;
# v83:  validation 83 (stop 68: an eighteenth random sample, predicted with stop 68's final model for both
#       profiles), about 2 minutes; on any GPU: an H100's folder is h100_validation83/;
# v85:  validation 85 (stop 71: a nineteenth random sample, predicted with stop 71's model for both profiles),
#       about 2 minutes; on any GPU: an H100's folder is h100_validation85/;
# onewave: the NCU L2 set `onewave` (stop 83: 36 grouped GEMMs whose grid is at most one wave, GROUP_M 1 / 2 / 4
#       / 8, with the coalescer and fabric counters; predicted before it runs in
#       benchmarks/data/ncu_l2_onewave_predicted_before_measuring.json; about 3 minutes, H200 only); its
#       ncu_l2_h200.json goes to benchmarks/data/ncu_l2_onewave_h200.json, scored by `python
#       benchmarks/ncu_l2/blind.py --set onewave --score benchmarks/data/ncu_l2_onewave_h200.json`;
# streamfma: the stream_fma probe (stop 83: `benchmarks/calibrate/run.py --only stream_fma,ddr`: a 64M-element
#       bf16 stream with 0-128 dependent FMAs an element, constants or a register operand, at 1024 / 4 warps and
#       4096 / 8 warps: how the CUDA cores' time and the DRAM's combine where they meet; about 2 minutes, either
#       GPU); its file goes to benchmarks/data/calibration_stream_fma.json (an H100's:
#       calibration_stream_fma_h100.json), read by `python benchmarks/probe_report.py stream_fma [--data FILE]`;
# v91:  validation 91 (stop 88: GEMM twins of one tile row and two, 36 launches predicted with the committed
#       model and with waiting_share.patch, for both profiles), about 2 minutes; on any GPU: an H100's folder is
#       h100_validation91/ (scored with --hw h100 against validation91/predicted_h100*.json);
# v90:  validation 90 (stop 83: the CUDA-DRAM norm blind, 40 loop-free element-wise and row launches predicted
#       with and without the rule for both profiles), about 2 minutes; on any GPU: an H100's folder is
#       h100_validation90/;
# v89:  validation 89 (stop 83: a twentieth random sample, 60 launches predicted with stop 83's model for both
#       profiles), about 2 minutes; on any GPU: an H100's folder is h100_validation89/;
# v86:  validation 86 (stop 73: the lone one-warpgroup attention blocks blind, 52 launches predicted for both
#       profiles with the stage-barrier rule), about 2 minutes; on any GPU: an H100's folder is h100_validation86/;
# alone: the attention issue probe's lone set (stop 72: `ATTN_ISSUE_SET=lone` for run_attn_issue.sh: full
#       attention at b2h32n4096 fp16 where one more stage leaves a block alone on its SM, each lone tile beside
#       its two-block twin under ncu's issue and stall counters, about 2 minutes, either GPU); its folder
#       attn_lone/ goes to benchmarks/data/ncu_attn_lone/ (an H100's to ncu_attn_lone_h100/), read by
#       `python benchmarks/ncu_diag/attn_issue.py --report FOLDER` (per K/V step an SM, with the model's figure);
# regsa: the register-A probe (stop 72: `benchmarks/calibrate/run.py --only regs_a`: dependent dot chains of
#       64-row tiles at N 16 / 32 / 64 with A from shared memory and from registers, 1, 2 and 4 blocks an SM,
#       either GPU, under a minute); its file goes to benchmarks/data/calibration_regs_a.json (an H100's:
#       calibration_regs_a_h100.json), read by `python benchmarks/probe_report.py regs_a [--data FILE]`;
# v87:  validation 87 (stop 74: the one-loop attention kernel beside its FOLD_SCALE twin, 66 launches predicted
#       for both profiles), about 2 minutes; on any GPU: an H100's folder is h100_validation87/; read by
#       `python benchmarks/accuracy.py --data FOLDER --recorded` and the folded / unfolded pairs;
# sfumix: the exp2-beside-FMAs probe (stop 74: `benchmarks/calibrate/run.py --only sfu_mix,sfu,cuda_core`, about
#       a minute, either GPU; an H100 ran it at stop 74); its file goes to benchmarks/data/calibration_sfu_mix.json,
#       read by `python benchmarks/probe_report.py sfu_mix --data FILE`;
# wrapped: the wrapped-dot probe (stop 71: `benchmarks/calibrate/run.py --only wrapped`, the attention loop's two
#       dots alone, 64-row tiles on 8 warps against 4, either GPU, under a minute); its file goes to
#       benchmarks/data/calibration_wrapped.json (an H100's: calibration_wrapped_h100.json), read by
#       `python benchmarks/probe_report.py wrapped`;
# v84:  validation 84 (stop 69: the one-loop causal attention with and without its per-element mask beside the
#       non-causal launch, 132 launches predicted for both profiles), under a minute on the GPU; on any GPU: an
#       H100's folder is h100_validation84/ (stop 70 ran it and v83 on an H100: both stay queued for the H200);
#       read by `python benchmarks/autotune/causal_mask.py --ablation [FOLDER]`;
# lrc:  the coalescer-pairs probe (stop 69: `benchmarks/ncu_diag/run_lrc_pairs.sh`, H200 only, about 25 s on the
#       GPU, not in the default steps: a second call, `queued.sh lrc lrc2`; stop 70 ran it on an H100,
#       benchmarks/data/ncu_lrc_pairs_h100/); its folder goes to benchmarks/data/ncu_lrc_pairs/, read by
#       `python benchmarks/ncu_diag/lrc_pairs.py --report FOLDER`;
# lrc2: the same probe over the pairs that place a GPC's other SMs (0 with 32, 48, 64 ...) and SMs 120-131
#       (stop 70's $LRC2_PAIRS below); its folder lrc_pairs2/ goes to benchmarks/data/ncu_lrc_pairs2/;
# mask: the attention issue probe's mask set (stop 70: `ATTN_ISSUE_SET=mask` for
#       benchmarks/ncu_diag/run_attn_issue.sh: the one-loop kernel causal and unmasked on six tiles under ncu's
#       issue and stall counters, about 2 minutes, either GPU); its folder attn_mask/ goes to
#       benchmarks/data/ncu_attn_mask/ (an H100's to ncu_attn_mask_h100/), read by
#       `python benchmarks/ncu_diag/attn_issue.py --report FOLDER`;
# c62b: the `crowded62` set again, as run 2;
# tma:  the descriptor-attention probe (stop 65: `benchmarks/ncu_diag/run_tma_attn.sh`, about 2 minutes; its
#       folder goes to benchmarks/data/ncu_tma_attn/, read by `python benchmarks/ncu_diag/tma_attn.py --report`);
# deep: the `stage_latency --deep` probe (stop 66: lone blocks at 2-5 stages, N 16 and 128, 4 and 8 warps,
#       about 2 minutes; lone/calibration_lone_deep.json goes to benchmarks/data/, read by
#       `python benchmarks/probe_report.py lone_deep`);
# lone: the `stage_latency --lone` probe (stop 64: a lone block's two- and three-stage DRAM step over tile bytes,
#    which separates the latency from the rate of ddr_stream_per_sm_bytes_per_s).
# layout: the attention-layout probe (stop 75: `benchmarks/ncu_diag/layout.py`: the project's attention kernel on
#       (B, H, N, D) and head-interleaved (B, N, H, D) layouts, and the survey's varlen forward, timed and under
#       ncu; under two minutes, either GPU; an H100 ran it at stop 75, benchmarks/data/ncu_layout_h100/); its
#       folder layout/ goes to benchmarks/data/ncu_layout/ (an H100's to ncu_layout_h100/) with `layout.py --predict`'s
#       predicted.json made first on the CPU, read by `python benchmarks/ncu_diag/layout.py --report FOLDER`;
# moe: the fused-MoE probe (stop 75: `benchmarks/ncu_diag/moe.py`, under a minute; an H100 ran it at stop 75,
#       benchmarks/data/ncu_moe_h100/); its folder moe/ goes to benchmarks/data/ncu_moe/, read the same way;
# moeblind: the MoE probe's blind set (stop 75: `MOE_SET=blind`, eight new MoE launches, k_moe.BLIND_SHAPES,
#       predicted for both profiles before timing: benchmarks/data/ncu_moe_blind_h100/predicted.json, either
#       GPU, under a minute; an H100 ran it at stop 75); its folder moe_blind/ goes next to that predicted.json (an H200's into
#       benchmarks/data/ncu_moe_blind/ with a copy of it), read by `MOE_SET=blind python
#       benchmarks/ncu_diag/moe.py --report FOLDER`;
# barrier: the CTA-barrier probe (stop 77: `benchmarks/calibrate/run.py --only barrier`: a block's warps meeting
#       0, 1 or 4 times a step after 8 or 64 dependent FMAs, 4 / 8 / 16 warps, 1 / 2 / 4 blocks an SM, under a
#       minute, either GPU); its file goes to benchmarks/data/calibration_barrier.json (an H100's:
#       calibration_barrier_h100.json), read by `python benchmarks/probe_report.py barrier [--data FILE]`: what
#       the descriptor attention's three extra meetings a step would cost (docs/known-gaps.md, stop 77);
# small: the warps probe's small set (stop 78: `WARPS_SET=small benchmarks/ncu_diag/run_warps.sh`, warp-level mma
#       tiles timed and under ncu, under a minute, either GPU; an H100 ran it at stop 78,
#       benchmarks/data/ncu_warps_small_h100/); its folder warps_small/ goes to benchmarks/data/ncu_warps_small/
#       (an H100's to ncu_warps_small_h100/), read by `python benchmarks/ncu_diag/warps.py --copies FOLDER`;
# copyw: the copy-width pass over the same set (stop 78: `benchmarks/ncu_diag/run_copy_width.sh`, the shared data
#       stage's per-operation counters, under a minute, either GPU; an H100 ran it at stop 78,
#       benchmarks/data/ncu_copy_width_h100/); its folder copy_width/ goes to benchmarks/data/ncu_copy_width/,
#       read by `python benchmarks/ncu_diag/warps.py --copy-width FOLDER`;
# Everything lands in $OUT/queued.tgz; unpack it and copy as benchmarks/data/README.md's rows for
# ncu_l2_crowded62_h200{,_run2}.json, validation74/, validation75/ and validation76/ say, then score with the commands there;
# lone/calibration_lone_step.json goes to benchmarks/data/ (read by `python benchmarks/probe_report.py lone_step`).
set -u
cd "$(dirname "$0")/../.."
out=${OUT:?OUT must be set (the device tool sets it)}
mkdir -p "$out"
extra=lrc__request_sectors_op_read_coalescable.sum,lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum,lts__t_sectors_srcunit_ltcfabric_op_read.sum,lts__t_sectors_srcunit_tex_op_read.sum
# The committed data are the H200's: a loan that comes up on another GPU (stop 66 got an H100 from a plain call)
# runs nothing unless QUEUED_ANY_GPU=1 says to (then keep its output apart, as benchmarks/data/h100_validation77/).
# Validations 82 and 83 were predicted for both profiles, so they run on either GPU, into a folder naming an H100.
# lrc2's pairs: SM 0 against the SMs its GPC would hold on stop 70's map (32, 48; 64-119: unknown) and others,
# SM 1 / 2 / 16 likewise, and SMs 120-131 against one SM of each GPC of the first 64
LRC2_PAIRS="0-3,0-4,0-6,0-10,0-12,0-14,0-17,0-32,0-33,0-48,0-49,0-64,0-65,0-78,0-92,0-106,0-120,1-16,1-17,\
2-3,2-18,2-19,2-34,2-50,16-32,16-48,8-40,64-66,64-79,64-92,64-93,64-106,78-92,120-122,120-124,120-126,120-128,\
120-130,121-123,124-126,120-0,120-2,120-4,120-6,120-8,120-10,120-12,120-14,124-0,124-2,124-4,124-6,124-8,124-10,\
124-12,124-14,128-0,128-2,128-4,128-6,128-8,128-10,128-12,128-14"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
h200=0
[[ "$gpu" == *H200* ]] && h200=1
status=0
steps=${*:-}
if [[ -z $steps ]]; then
  echo "queued.sh: nothing queued; name steps (v91 v90 v89 onewave streamfma alu hot robust small copyw barrier moeblind layout moe v87 v86 v85 alone regsa wrapped sfumix v84 v83 mask lrc lrc2 v82 v81 v77 deep c62 v74 v75 v76 c62b tma lone)" >&2
  exit 0
fi
for step in $steps; do
  if [[ $step != v82 && $step != v83 && $step != v84 && $step != v85 && $step != v86 && $step != v88 && $step != v89 && $step != v90 && $step != v91 && $step != wrapped && $step != mask && $step != alone && $step != regsa && $step != layout && $step != moe && $step != moeblind && $step != barrier && $step != small && $step != copyw && $step != robust && $step != hot && $step != alu && $step != streamfma && $h200 != 1 && "${QUEUED_ANY_GPU:-0}" != 1 ]]; then
    echo "queued.sh: this GPU is '${gpu:-none found}', not an H200; step $step not run (QUEUED_ANY_GPU=1 runs it)" >&2
    status=3
    continue
  fi
  case $step in
    v82|v83|v84|v85|v86|v87|v88|v89|v90|v91) if [[ $h200 == 1 ]]; then dir=validation${step#v}; else dir=h100_validation${step#v}; fi
         budget=200; [[ $step == v84 ]] && budget=240  # v84's 132 attention launches compile longer
         OUT=$out/$dir bash benchmarks/triton_sweep/run.sh --validation${step#v} --budget-s $budget ;;
    onewave) NCU_L2_SET=onewave NCU_L2_EXTRA=$extra OUT=$out/onewave timeout 300 bash benchmarks/ncu_l2/run.sh ;;
    c62) NCU_L2_SET=crowded62 NCU_L2_EXTRA=$extra OUT=$out/c62 timeout 170 bash benchmarks/ncu_l2/run.sh ;;
    c62b) NCU_L2_SET=crowded62 NCU_L2_EXTRA=$extra OUT=$out/c62_run2 timeout 120 bash benchmarks/ncu_l2/run.sh ;;
    v74|v75|v76|v77|v81) OUT=$out/validation${step#v} bash benchmarks/triton_sweep/run.sh --validation${step#v} --budget-s 150 ;;
    tma) OUT=$out/tma_attn timeout 240 bash benchmarks/ncu_diag/run_tma_attn.sh ;;
    lrc) OUT=$out/lrc_pairs timeout 240 bash benchmarks/ncu_diag/run_lrc_pairs.sh ;;
    mask) ATTN_ISSUE_SET=mask OUT=$out/attn_mask timeout 300 bash benchmarks/ncu_diag/run_attn_issue.sh ;;
    alone) ATTN_ISSUE_SET=lone OUT=$out/attn_lone timeout 300 bash benchmarks/ncu_diag/run_attn_issue.sh ;;
    lrc2) LRC_PAIRS=$LRC2_PAIRS OUT=$out/lrc_pairs2 timeout 240 bash benchmarks/ncu_diag/run_lrc_pairs.sh ;;
    deep) mkdir -p "$out/lone" && timeout 240 python3 benchmarks/calibrate/stage_latency.py --deep \
            --out "$out/lone/calibration_lone_deep.json" ;;
    wrapped) mkdir -p "$out/wrapped" && timeout 240 python3 benchmarks/calibrate/run.py \
            --out "$out/wrapped/calibration_wrapped.json" --only wrapped ;;
    regsa) mkdir -p "$out/regs_a" && timeout 240 python3 benchmarks/calibrate/run.py \
            --out "$out/regs_a/calibration_regs_a.json" --only regs_a ;;
    sfumix) mkdir -p "$out/sfu_mix" && timeout 120 python3 benchmarks/calibrate/run.py \
            --out "$out/sfu_mix/calibration_sfu_mix.json" --only sfu_mix,sfu,cuda_core ;;
    moeblind) mkdir -p "$out/moe_blind" && (cd benchmarks/ncu_diag && export MOE_SET=blind \
            && timeout 150 python3 moe.py --time "$out/moe_blind/moe_time.jsonl" \
            && timeout 240 /usr/local/cuda/bin/ncu --clock-control none --cache-control all --csv \
                 --metrics "$(python3 moe.py --metrics)" -k regex:'moe_gemm' \
                 python3 moe.py --once > "$out/moe_blind/moe_ncu.csv") ;;
    layout|moe) mkdir -p "$out/$step" && (cd benchmarks/ncu_diag \
            && timeout 150 python3 $step.py --time "$out/$step/${step}_time.jsonl" \
            && timeout 240 /usr/local/cuda/bin/ncu --clock-control none --cache-control all --csv \
                 --metrics "$(python3 $step.py --metrics)" -k regex:'attention_fwd_kernel|varlen_fwd|moe_gemm|matmul_kernel' \
                 python3 $step.py --once > "$out/$step/${step}_ncu.csv") ;;
    barrier) mkdir -p "$out/barrier" && timeout 200 python3 benchmarks/calibrate/run.py \
            --out "$out/barrier/calibration_barrier.json" --only barrier ;;
    streamfma) mkdir -p "$out/stream_fma" && timeout 300 python3 benchmarks/calibrate/run.py \
            --out "$out/stream_fma/calibration_stream_fma.json" --only stream_fma,ddr ;;
    alu) mkdir -p "$out/alu" && timeout 240 python3 benchmarks/calibrate/run.py \
            --out "$out/alu/calibration_alu_forms.json" --only alu_forms,cuda_core,sfu ;;
    hot) mkdir -p "$out/hot" && timeout 240 python3 benchmarks/calibrate/run.py \
            --out "$out/hot/calibration_atomics_hot.json" --only atomics_hot ;;
    robust) mkdir -p "$out/robust" && gpuname=h200 && { [[ $h200 == 1 ]] || gpuname=h100; } \
            && timeout 420 python3 benchmarks/survey_triton/run_gpu.py --set robust \
                 --out "$out/robust/robust_$gpuname.jsonl" ;;
    small) WARPS_SET=small OUT=$out/warps_small timeout 200 bash benchmarks/ncu_diag/run_warps.sh ;;
    copyw) OUT=$out/copy_width timeout 200 bash benchmarks/ncu_diag/run_copy_width.sh ;;
    lone) mkdir -p "$out/lone" && timeout 150 python3 benchmarks/calibrate/stage_latency.py --lone \
            --out "$out/lone/calibration_lone_step.json" ;;
    *) echo "queued.sh: unknown step $step (v91 v90 v89 onewave streamfma alu hot robust small copyw barrier moeblind layout moe v87 sfumix v86 v85 alone regsa wrapped v84 v83 mask lrc lrc2 v82 v81 v77 deep c62 v74 v75 v76 c62b tma lone)" >&2; false ;;
  esac || status=$?
done
(cd "$out" && tar czf queued.tgz $(ls -d onewave c62 c62_run2 validation74 validation75 validation76 validation77 validation81 validation82 h100_validation82 validation83 h100_validation83 validation84 h100_validation84 validation85 h100_validation85 validation86 h100_validation86 validation87 h100_validation87 validation88 h100_validation88 validation89 h100_validation89 validation90 h100_validation90 validation91 h100_validation91 tma_attn attn_mask attn_lone lrc_pairs lrc_pairs2 wrapped regs_a sfu_mix lone layout moe moe_blind barrier warps_small copy_width robust hot alu stream_fma 2>/dev/null)) \
    || status=$?
exit "$status"
