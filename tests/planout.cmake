# The plan's outputs (planner/gb_plan_out.c, gb_plan_json.c, gb_plan_near.c, gb_plan_text.c): near-misses,
# names that help, one record behind every writer, the JSON schema. gb_plan_cli_test: planner.cmake.
gb_add_check_test(check_plan_out check_plan_out.c check_planner_world.c LIBS gb_planner)
# the README example: nothing fits the 250k cash budget, so the near-misses and the binding constraint
gb_plan_cli_test(plan_cli_readme_example 1 "binding constraint: the budget: raise it from 250000 to "
                 plan --gpu-type H200-SXM-141GB --offering purchase --json ${GB_PLAN_TMP}/readme.json)
gb_plan_cli_test(plan_cli_near_fastest 1 "fastest within the budget:        H100-SXM-80GB x" plan --max-hours 100
                 --budget 114000 --gpu-type H100-SXM-80GB --provider RunPod)
gb_plan_cli_test(plan_cli_explain_summary 1 "rejected by reason; best or nearest miss" plan
                 --max-hours 100 --budget 20000 --explain)
gb_plan_cli_test(plan_cli_explain_bad 2 "--explain: \"every\" is not summary or all" plan --explain=every)
gb_plan_cli_test(plan_cli_gpu_type_nearest 2 "unknown GPU type \"H200\" (did you mean H200-SXM-141GB? valid: A100-SXM-80GB"
                 plan --gpu-type H200)
gb_plan_cli_test(plan_cli_provider_nearest 2 "unknown provider \"corweave\" (did you mean CoreWeave?" plan
                 --provider corweave)
gb_plan_cli_test(plan_cli_offering_nearest 2 "(did you mean spot?)" plan --offering spott)
gb_plan_cli_test(plan_cli_workload_name 0 "workload inference-70b (inference" plan --workload inference-70b --top 1)
gb_plan_cli_test(plan_cli_workload_nearest 2 "unknown workload \"training7b\" (did you mean training-7b?" plan
                 --workload training7b)
# The default plan's text, CSV, JSON and report agree on every figure of its top 10.
add_test(NAME plan_agree COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/cli/plan_agree.py $<TARGET_FILE:gpubench>
         ${GB_PLAN_TMP}/agree)
# The JSON of plans of every shape against docs/plan.schema.json (77: python3-jsonschema missing;
# scripts/test-plan-json.sh installs it and runs this in CI).
add_test(NAME plan_json_schema COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/cli/plan_schema.py $<TARGET_FILE:gpubench>
         ${CMAKE_SOURCE_DIR}/docs/plan.schema.json ${CMAKE_SOURCE_DIR}/data ${GB_PLAN_TMP}/schema)
set_tests_properties(plan_agree plan_json_schema PROPERTIES LABELS cpu SKIP_RETURN_CODE 77)
# zsh completion: the bash one through bashcompinit (zsh -n checks it where zsh is installed)
gb_plan_cli_test(plan_cli_zsh_completion 0 "autoload -U +X bashcompinit && bashcompinit" --completion zsh)
gb_plan_cli_test(plan_cli_energy 0 " kWh a job (" plan --top 1)
gb_plan_cli_test(plan_cli_spot_rows 0 "AWS        spot" plan --top 3 --offering spot)
