gb_add_check_test(check_specs check_specs.c LIBS gb_specs)
gb_add_check_test(check_planner check_planner.c check_planner_world.c LIBS gb_planner)
gb_add_check_test(check_planner_model check_planner_model.c check_planner_world.c LIBS gb_planner)
gb_add_check_test(check_planner_money check_planner_money.c check_planner_world.c LIBS gb_planner)
gb_add_check_test(check_planner_serve check_planner_serve.c check_planner_world.c LIBS gb_planner)
gb_add_check_test(check_planner_data check_planner_data.c LIBS gb_planner)
gb_add_check_test(check_planner_terms check_planner_terms.c check_planner_world.c LIBS gb_planner)
gb_add_check_test(check_planner_decode check_planner_decode.c check_planner_world.c LIBS gb_planner)

# The plan command end to end (no GPU needed): exit status and message.
# gb_plan_cli_test(NAME RC EXPECT ARGS...)
function(gb_plan_cli_test name rc expect)
  if(NOT TARGET gpubench)
    return()
  endif()
  add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:gpubench> "-DARGS=${ARGN}" -DRC=${rc}
           "-DEXPECT=${expect}" -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/planner_expect.cmake)
  set_tests_properties(${name} PROPERTIES LABELS cpu)
endfunction()
gb_plan_cli_test(plan_cli_default 0 "Best measured:  " plan --top 3)
gb_plan_cli_test(plan_cli_measured 0 "H200-SXM-141GB         700.0 measured 3%" plan --top 3
                 --measured ${GB_FIXTURES}/planner_h200.csv)
# the H200 bf16 GEMM row of data/measured, throttled (power-capped, checked), beside an ok speedup row:
# the rate is measured from it, not projected, and says so
gb_plan_cli_test(plan_cli_throttled 0 "H200-SXM-141GB         710.5 measured-throttled 5%" plan --top 3
                 --measured ${GB_FIXTURES}/planner_h200_throttled.csv)
gb_plan_cli_test(plan_cli_throttled_note 0
                 "the bf16 GEMM rate 710.5 TFLOP/s at size 8192 rests on throttled rows" plan
                 --top 3 --measured ${GB_FIXTURES}/planner_h200_throttled.csv)
gb_plan_cli_test(plan_cli_help 0 "--max-hours" plan --help)
# each group heading of plan --help and of its man page section once (the store option
# once repeated "Inputs:")
if(TARGET gpubench)
  add_test(NAME plan_help_groups_once COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:gpubench> -DCMD=plan
           -DMAN=${CMAKE_BINARY_DIR}/gpubench.1 -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/help_groups_once.cmake)
  set_tests_properties(plan_help_groups_once PROPERTIES LABELS cpu)
endif()
gb_plan_cli_test(plan_cli_inference 0 "Mtok/USD" plan ${CMAKE_SOURCE_DIR}/data/workloads/inference-70b.ini --top 3)
gb_plan_cli_test(plan_cli_bad_number 2 "--params: params: not a number: \"abc\"" plan --params abc)
gb_plan_cli_test(plan_cli_absurd_gpus 2 "--max-gpus: absurd value 1e12" plan --max-gpus 1e12)
gb_plan_cli_test(plan_cli_bad_prices 2 "results_good.csv:1: missing column provider" plan
                 --prices ${GB_FIXTURES}/results_good.csv)
gb_plan_cli_test(plan_cli_infeasible 1 "no configuration meets the constraints" plan --budget 10)
gb_plan_cli_test(plan_cli_unknown_option 2 "unknown option \"--bogus\"" plan --bogus 1)

# Published runs against the time model (issue 27): prints each case's
# predicted / published ratio, the median and the worst.
gb_add_check_test(check_planner_calibration check_planner_calibration.c LIBS gb_planner)
target_compile_definitions(check_planner_calibration PRIVATE GB_CALIBRATION_DIR="${CMAKE_CURRENT_SOURCE_DIR}/calibration")

# Issue 27: each flag, each basis, the capex/budget rule and every rejected input (exit 2, file:line).
set(GB_PLAN_TMP ${CMAKE_CURRENT_BINARY_DIR}/planner_inputs)
file(MAKE_DIRECTORY ${GB_PLAN_TMP})
set(GB_PRICES_HEAD "provider,offering,gpu_type,gpus_per_node,price_usd_per_gpu_hour,purchase_usd_per_gpu,date,source,confidence\n")
file(WRITE ${GB_PLAN_TMP}/prices_future.csv "${GB_PRICES_HEAD}P,on-demand,H100-SXM-80GB,8,2,,2099-01-01,s,V\n")
file(WRITE ${GB_PLAN_TMP}/prices_cheap.csv "${GB_PRICES_HEAD}P,on-demand,H100-SXM-80GB,8,2,,2026-01-01,s,V\nQ,on-demand,H100-SXM-80GB,1,0.005,,2026-01-01,s,V\n")
file(WRITE ${GB_PLAN_TMP}/prices_old.csv "${GB_PRICES_HEAD}Cheap,on-demand,H100-SXM-80GB,8,1,,2020-01-01,s,V\nNew,on-demand,H100-SXM-80GB,8,3,,2026-01-01,s,V\n")
file(WRITE ${GB_PLAN_TMP}/prices_dear.csv "${GB_PRICES_HEAD}P,on-demand,H100-SXM-80GB,8,1200,,2026-01-01,s,V\n")
file(WRITE ${GB_PLAN_TMP}/bad_goodput.ini "[workload]\ntype = training\nparams = 1e9\ntokens = 1e10\ntokens_per_step = 1e6\ngoodput = 2\n")
file(WRITE ${GB_PLAN_TMP}/bad_tp.ini "[workload]\ntype = training\nparams = 1e9\ntokens = 1e10\ntokens_per_step = 1e6\ntensor_parallel = 0\n")
file(WRITE ${GB_PLAN_TMP}/bad_demand.ini "[workload]\ntype = training\nparams = 1e9\ntokens = 1e10\ntokens_per_step = 1e6\ndemand_gpu_hours_per_month = 5,-1\n")
file(WRITE ${GB_PLAN_TMP}/demand.ini "[workload]\ntype = training\nparams = 7e9\ntokens = 1e11\ntokens_per_step = 4194304\nsharded = true\ndemand_base_gpus = 64\ndemand_peak_gpus = 192\ndemand_peak_fraction = 0.1\n")
gb_plan_cli_test(plan_cli_gpu_type 0 "H200-SXM-141GB    48 (6x8)" plan --gpu-type H200-SXM-141GB --gpus 48)
gb_plan_cli_test(plan_cli_gpus_list 0 "2 feasible of 2 configurations (" plan --gpu-type H200-SXM-141GB --gpus 48,56 --provider CoreWeave)
gb_plan_cli_test(plan_cli_provider 0 "CoreWeave  on-demand" plan --provider CoreWeave --top 1)
gb_plan_cli_test(plan_cli_offering 0 "Best projected: none feasible" plan --offering purchase --budget-basis amortized --only-measured)
gb_plan_cli_test(plan_cli_only_measured 0 "Best projected: none feasible" plan --only-measured)
gb_plan_cli_test(plan_cli_rank_by 0 "at the high end (optimistic) of each band" plan --rank-by high)
gb_plan_cli_test(plan_cli_rank_by_median 0 "at the median of each band" plan --rank-by median)
# the 48 H200 bought: capex 48 x 52,500 x 1.15 = 2,898,000 (+ energy, operations) > the 250k cash budget
gb_plan_cli_test(plan_cli_budget_cash 1 "the budget: raise it from 250000 to " plan --gpu-type H200-SXM-141GB
                 --gpus 48 --offering purchase)
gb_plan_cli_test(plan_cli_budget_amortized 0 "budget 250000 USD amortized (the job's share)" plan --budget-basis amortized)
gb_plan_cli_test(plan_cli_json 0 "Wrote ${GB_PLAN_TMP}/plan.json" plan --json ${GB_PLAN_TMP}/plan.json)
gb_plan_cli_test(plan_cli_hybrid 0 "Hybrid for the demand profile (GPUs of " plan ${GB_PLAN_TMP}/demand.ini
                 --hybrid-csv ${GB_PLAN_TMP}/hybrid.csv)
# an old row and a current one (the shipped table has no row over 18 months old)
gb_plan_cli_test(plan_cli_stale 0 "Prices older than 18 months" plan --prices ${GB_PLAN_TMP}/prices_old.csv)
# --max-price-age drops the old row outright and says so; the top choice's price row is named with its age
gb_plan_cli_test(plan_cli_max_price_age 0 "--max-price-age 365: 1 price row(s) older than that left out" plan
                 --prices ${GB_PLAN_TMP}/prices_old.csv --max-price-age 365)
gb_plan_cli_test(plan_cli_deciding_prices 0 "#1 Cheap on-demand H100-SXM-80GB x8: 1.00 USD a GPU-hour, dated 2020-01-01"
                 plan --prices ${GB_PLAN_TMP}/prices_old.csv)
gb_plan_cli_test(plan_cli_bad_max_price_age 2 "--max-price-age: must be a whole number: 1.5" plan --max-price-age 1.5)
gb_plan_cli_test(plan_cli_inference_rate 0 "output tokens/s per GPU" plan ${CMAKE_SOURCE_DIR}/data/workloads/inference-70b.ini)
# a MoE service with data-parallel attention names its layout, and --explain its all-to-alls
gb_plan_cli_test(plan_cli_attention_dp 0 "output tokens/s per GPU (attention data-parallel 4, batch" plan
                 ${CMAKE_SOURCE_DIR}/tests/calibration/trtllm-b200x4-dsr1-fp4-1k1k.ini --gpu-type B200-SXM-180GB --gpus 4)
gb_plan_cli_test(plan_cli_attention_dp_explain 0 "(data-parallel attention's MoE all-to-alls)" plan
                 ${CMAKE_SOURCE_DIR}/tests/calibration/trtllm-b200x4-dsr1-fp4-1k1k.ini --gpu-type B200-SXM-180GB --gpus 4
                 --explain)
gb_plan_cli_test(plan_cli_bad_rank_by 2 "--rank-by: \"worst\" is not low, median or high" plan --rank-by worst)
gb_plan_cli_test(plan_cli_bad_budget_basis 2 "--budget-basis: \"capex\" is not cash or amortized" plan --budget-basis capex)
gb_plan_cli_test(plan_cli_bad_gpu_type 2 "--gpu-type: unknown GPU type \"H900\"" plan --gpu-type H900)
gb_plan_cli_test(plan_cli_bad_gpus 2 "--gpus: \"0\" is not a GPU count" plan --gpus 8,0)
gb_plan_cli_test(plan_cli_bad_provider 2 "--provider: unknown provider \"Nowhere\"" plan --provider Nowhere)
gb_plan_cli_test(plan_cli_bad_offering 2 "--offering: \"rent\" is not on-demand" plan --offering rent)
gb_plan_cli_test(plan_cli_price_future 2 "prices_future.csv:2: date: 2099-01-01 is in the future" plan
                 --prices ${GB_PLAN_TMP}/prices_future.csv)
gb_plan_cli_test(plan_cli_price_cheap 2 "prices_cheap.csv:3: price_usd_per_gpu_hour: 0.005 is below 0.01" plan
                 --prices ${GB_PLAN_TMP}/prices_cheap.csv)
gb_plan_cli_test(plan_cli_price_dear 2 "prices_dear.csv:2: price_usd_per_gpu_hour: absurd value 1200" plan
                 --prices ${GB_PLAN_TMP}/prices_dear.csv)
gb_plan_cli_test(plan_cli_bad_goodput 2 "bad_goodput.ini:6: goodput: absurd value 2" plan ${GB_PLAN_TMP}/bad_goodput.ini)
gb_plan_cli_test(plan_cli_bad_tp 2 "bad_tp.ini:6: tensor_parallel: must be >= 1" plan ${GB_PLAN_TMP}/bad_tp.ini)
gb_plan_cli_test(plan_cli_bad_demand 2 "bad_demand.ini:6: demand_gpu_hours_per_month: \"-1\"" plan
                 ${GB_PLAN_TMP}/bad_demand.ini)

# Issue 27, every flag: the output options and bad values of each option exit 2 naming it; bad values of
# the workload keys the model tests (check_planner) name file:line.
gb_plan_cli_test(plan_cli_explain 1 "8 GPUs (1x8) CoreWeave   on-demand  over deadline (" plan --gpu-type H200-SXM-141GB
                 --gpus 8 --provider CoreWeave --max-hours 1 --explain=all)
gb_plan_cli_test(plan_cli_no_explain 1 "1 over deadline (--explain: a summary per GPU type" plan --gpu-type H200-SXM-141GB
                 --gpus 8 --provider CoreWeave --max-hours 1)
# the fixture's bf16 GEMM at 4096^3 is 600 TFLOP/s (700 at the default 8192)
gb_plan_cli_test(plan_cli_gemm_size 0 "H200-SXM-141GB         600.0 measured 3%" plan --top 3 --gemm-size 4096
                 --measured ${GB_FIXTURES}/planner_h200.csv)
gb_plan_cli_test(plan_cli_top 0 "Best GPU count per type, provider and offering (2 of " plan --top 2)
gb_plan_cli_test(plan_cli_bad_top 2 "--top: not a whole number from 0 to 1000000: \"x\"" plan --top x)
foreach(bad "years;0;must be > 0: 0" "ops-fraction;2;absurd value 2" "network-overhead;0.5;must be >= 1: 0.5"
        "host-power;-1;must be >= 0: -1" "pue;abc;not a number: \"abc\"" "electricity;0;must be > 0: 0"
        "utilization;0;must be > 0: 0" "nic-gbit;0;must be > 0: 0" "nics-per-node;1.5;must be a whole number"
        "spot-preemptions;x;not a number: \"x\"" "spot-checkpoint-hours;0;must be > 0: 0"
        "spot-restart-hours;-1;must be >= 0: -1" "price-scale;1000;absurd value 1000" "jobs-per-year;0;must be > 0: 0")
  list(GET bad 0 opt)
  list(GET bad 1 val)
  list(GET bad 2 msg)
  gb_plan_cli_test(plan_cli_bad_${opt} 2 "--${opt}: ${msg}" plan --${opt} ${val})
endforeach()
gb_plan_cli_test(plan_cli_bad_expert_parallel_flag 2 "--expert-parallel: expert_parallel: must be >= 1: 0" plan
                 --expert-parallel 0)
file(WRITE ${GB_PLAN_TMP}/bad_top_k.ini "[workload]\ntype = training\nparams = 8e9\nactive_params = 2e9\ntokens = 1e10\ntokens_per_step = 1e6\nexpert_parallel = 8\nmoe_top_k = 65\n")
gb_plan_cli_test(plan_cli_bad_top_k 2 "bad_top_k.ini:8: moe_top_k: absurd value 65" plan ${GB_PLAN_TMP}/bad_top_k.ini)
file(WRITE ${GB_PLAN_TMP}/bad_bucket.ini "[workload]\ntype = training\nparams = 1e9\ntokens = 1e10\ntokens_per_step = 1e6\nbucket_bytes = 25MB\n")
gb_plan_cli_test(plan_cli_bad_bucket 2 "bad_bucket.ini:6: bucket_bytes: not a number: \"25MB\"" plan
                 ${GB_PLAN_TMP}/bad_bucket.ini)
file(WRITE ${GB_PLAN_TMP}/bad_usable.ini "[workload]\ntype = training\nparams = 1e9\ntokens = 1e10\ntokens_per_step = 1e6\nusable_memory_fraction = 0\n")
gb_plan_cli_test(plan_cli_bad_usable 2 "bad_usable.ini:6: usable_memory_fraction: must be > 0: 0" plan
                 ${GB_PLAN_TMP}/bad_usable.ini)
# node shape: a 1-GPU slice of a server has no rail of its fabric, so 41 single H200s no longer beat the
# 8-GPU NVLink nodes for the shipped 7B plan
gb_plan_cli_test(plan_cli_node_shape 0 "H200-SXM-141GB x48 RunPod on-demand, " plan --top 3)
file(WRITE ${GB_PLAN_TMP}/bad_stages.ini "[workload]\ntype = training\nparams = 1e9\ntokens = 1e10\ntokens_per_step = 1e6\nlayers = 30\npipeline_parallel = 4\n")
gb_plan_cli_test(plan_cli_bad_stages 2 "layers 30 do not divide into pipeline_parallel x virtual_pipeline = 4" plan
                 ${GB_PLAN_TMP}/bad_stages.ini)

# Issue 56: every price row dated, sourced and rated, none in the future; the default plan's top 3 on
# prices under 18 months old at the build's date (the last commit's); the age rate as fitted.
if(TARGET gpubench)
  add_test(NAME price_age COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/check_price_age.sh ${CMAKE_SOURCE_DIR}
           $<TARGET_FILE:gpubench>)
  # the same check 18 months after the shipped prices must fail, naming the old top choice
  add_test(NAME price_age_stale_fails COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/check_price_age.sh ${CMAKE_SOURCE_DIR}
           $<TARGET_FILE:gpubench> 2028-06-01)
  set_tests_properties(price_age price_age_stale_fails PROPERTIES LABELS cpu)
  set_tests_properties(price_age_stale_fails PROPERTIES PASS_REGULAR_EXPRESSION "FAIL: top 1 [^\n]* rests on a price dated")
endif()
