# Hostile inputs and unlucky operators (docs/reliability.md, "Held by
# construction"): the commands run as subprocesses.
if(TARGET gpubench)
  gb_add_check_test(check_harden check_harden.c LIBS gb_planner gb_gate gb_push)
  add_dependencies(check_harden gpubench)
  set_tests_properties(check_harden PROPERTIES TIMEOUT 600)
endif()
# scripts/lint.sh's Containerfile rules, each on a file that breaks it
add_test(NAME lint_containerfile COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/lint/check_containerfile.sh)
set_tests_properties(lint_containerfile PROPERTIES LABELS cpu TIMEOUT 60)
# the Kubernetes manifests' securityContext and resources (scripts/lint.sh):
# the shipped ones pass, and each required field removed is caught
add_test(NAME lint_k8s COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/lint/check_k8s.py --selftest
         ${CMAKE_SOURCE_DIR}/deploy/k8s/campaign-job.yaml ${CMAKE_SOURCE_DIR}/deploy/k8s/collective-job.yaml
         ${CMAKE_SOURCE_DIR}/deploy/k8s/merge-job.yaml)
set_tests_properties(lint_k8s PROPERTIES LABELS cpu TIMEOUT 60 SKIP_RETURN_CODE 77)
