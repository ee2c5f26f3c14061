/* gb_rep_sections: the table of the report's sections (gb_rep_sections.h). */
#include "gb_rep_sections.h"

#include <string.h>

const gb_rep_section gb_rep_sections[] = {
    {"gemm", gb_rep_section_gemm},
    {"fma", gb_rep_section_fma},
    {"membw", gb_rep_section_membw},
    {"copy", gb_rep_section_copy},
    {"collective", gb_rep_section_collective},
    {"roofline", gb_rep_section_roofline},
};
const size_t gb_rep_nsections = sizeof gb_rep_sections / sizeof gb_rep_sections[0];

const gb_rep_section *gb_rep_section_find(const char *name) {
  for (size_t i = 0; name && i < gb_rep_nsections; i++)
    if (strcmp(gb_rep_sections[i].name, name) == 0) return &gb_rep_sections[i];
  return NULL;
}
