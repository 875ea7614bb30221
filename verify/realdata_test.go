package verify

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/benchgate/benchgate/internal/fixtures"
)

// formationEvalBoard builds a leaderboard holding the real FormationEval
// v0.1 benchmark and one submission per model of the published responses,
// scored with the given extraction policy.
func formationEvalBoard(t *testing.T, policy string) fstest.MapFS {
	t.Helper()
	bench, subs := fixtures.FormationEval(t)
	reg := fmt.Sprintf(`[{"key": "formationeval", "file": "rubrics/formationeval_v0.1.json", "kind": "mcq", "extraction": %q}]`, policy)
	fsys := fstest.MapFS{
		"rubrics/rubrics.json":            {Data: []byte(reg)},
		"rubrics/formationeval_v0.1.json": {Data: bench},
	}
	for m, rows := range subs {
		scores, _ := json.MarshalIndent(rows, "", "  ")
		meta, _ := json.Marshal(map[string]any{"model_name": m, "candidate_model_id": m, "submitter": "formationeval", "contact_or_repo": "https://github.com/AlmazErmilov/FormationEval-an-Open-Benchmark-for-Oil-Gas-Geoscience-MCQ-Evaluation", "rubric_key": "formationeval", "date": "2026-01-01"})
		dir := "submissions/model-benchmark/" + m
		fsys[dir+"/meta.json"] = &fstest.MapFile{Data: meta}
		fsys[dir+"/scores.json"] = &fstest.MapFile{Data: scores}
	}
	return fsys
}

func verifyBoard(t *testing.T, fsys fstest.MapFS) Report {
	t.Helper()
	v, err := New(fsys, Options{Today: testToday})
	if err != nil {
		t.Fatal(err)
	}
	dirs, err := v.Discover()
	if err != nil {
		t.Fatal(err)
	}
	return v.VerifyAll(dirs)
}

// TestFormationEvalPublishedCounts verifies the published responses of three
// models with FormationEval's own extractor: every submission passes with no
// dispute and reproduces the published leaderboard.
func TestFormationEvalPublishedCounts(t *testing.T) {
	rep := verifyBoard(t, formationEvalBoard(t, "formationeval-v0.1"))
	want := fixtures.FormationEvalModels
	for _, r := range rep.Submissions {
		m := r.Path[strings.LastIndexByte(r.Path, '/')+1:]
		if r.Status != Pass || len(r.Errors) > 0 {
			t.Errorf("%s: status %s, errors %v", m, r.Status, r.Errors)
		}
		s := r.Summary
		// claude-3.5-haiku has one truncated response, decidable from its
		// first character.
		if *s.Questions != 505 || *s.Correct != want[m] || *s.Disputes != 0 || *s.Unverifiable != 0 {
			t.Errorf("%s: %d/%d correct, %d disputes; want %d/505 and none", m, *s.Correct, *s.Questions, *s.Disputes, want[m])
		}
		t.Logf("%s: %s", m, s.Line())
	}
	if len(rep.Submissions) != 3 {
		t.Fatalf("verified %d submissions, want 3", len(rep.Submissions))
	}
}

// TestFormationEvalFlexibleDisputes verifies the same submissions under the
// flexible policy, which reads some responses differently from the
// published extractor; each difference is a dispute, listed here.
func TestFormationEvalFlexibleDisputes(t *testing.T) {
	rep := verifyBoard(t, formationEvalBoard(t, "flexible"))
	var got []string
	for _, r := range rep.Submissions {
		m := r.Path[strings.LastIndexByte(r.Path, '/')+1:]
		for _, e := range r.Errors {
			if e.Code != "mcq.dispute" {
				t.Errorf("%s: unexpected error %v", m, e)
				continue
			}
			got = append(got, m+" "+e.Question+": "+e.Message[:strings.Index(e.Message, " in the response")])
		}
		if r.Summary.Disputes == nil || *r.Summary.Disputes != countPrefix(got, m+" ") {
			t.Errorf("%s: summary disputes %v do not match the errors", m, r.Summary.Disputes)
		}
	}
	sort.Strings(got)
	if strings.Join(got, "\n") != strings.Join(flexibleDisputes, "\n") {
		t.Errorf("disputes under flexible:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(flexibleDisputes, "\n"))
	}
}

func countPrefix(list []string, prefix string) int {
	n := 0
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			n++
		}
	}
	return n
}

// flexibleDisputes are the published rows where FormationEval's extractor
// and the flexible policy read different letters.
var flexibleDisputes = []string{
	"gpt-oss-120b formationeval_v0.1_geophysics_sampling_nyquist_005: answer is A but the flexible policy reads B",
	"gpt-oss-120b formationeval_v0.1_geophysics_silica_diagenesis_reflectors_006: answer is A but the flexible policy reads D",
	"gpt-oss-120b formationeval_v0.1_geophysics_wave_types_002: answer is A but the flexible policy reads D",
	"gpt-oss-120b formationeval_v0.1_petroleumgeology_clay_dehydration_007: answer is A but the flexible policy reads C",
	"gpt-oss-120b formationeval_v0.1_petroleumgeology_sill_intrusions_018: answer is A but the flexible policy reads C",
	"gpt-oss-120b formationeval_v0.1_petroleumgeology_stratigraphy_scope_001: answer is A but the flexible policy reads C",
	"gpt-oss-120b formationeval_v0.1_petroleumgeology_trap_style_rift_stage_007: answer is A but the flexible policy reads C",
	"gpt-oss-120b formationeval_v0.1_petrophysics_mid_plot_004: answer is A but the flexible policy reads D",
	"gpt-oss-120b formationeval_v0.1_petrophysics_neutron_porosity_009: answer is A but the flexible policy reads B",
	"gpt-oss-120b formationeval_v0.1_petrophysics_nmr_relaxation_002: answer is A but the flexible policy reads C",
	"gpt-oss-120b formationeval_v0.1_petrophysics_resistivity_principles_003: answer is C but the flexible policy reads A",
	"gpt-oss-120b formationeval_v0.1_petrophysics_volumetric_pe_012: answer is A but the flexible policy reads B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_drilling_engineering_lwd_data_acquisition_002: answer is A but the flexible policy reads D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_drilling_engineering_lwd_sonic_007: answer is A but the flexible policy reads B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_drillingengineering_mwd_resistivity_004: answer is A but the flexible policy reads C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_geophysics_3d_acquisition_008: answer is A but the flexible policy reads C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_geophysics_amplitude_vs_timeshift_005: answer is A but the flexible policy reads B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_geophysics_blanketing_effect_007: answer is A but the flexible policy reads C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_geophysics_heat_flow_calculation_004: answer is A but the flexible policy reads D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_geophysics_pressure_saturation_discrimination_009: answer is A but the flexible policy reads D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_geophysics_reflection_seismology_001: answer is A but the flexible policy reads B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_geophysics_rpt_cement_ntg_008: answer is A but the flexible policy reads B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_geophysics_sedimentation_cooling_009: answer is A but the flexible policy reads B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_geophysics_silica_diagenesis_reflectors_006: answer is A but the flexible policy reads D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_geophysics_timeshift_interpretation_006: answer is A but the flexible policy reads D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_geophysics_vp_vs_interpretation_006: answer is A but the flexible policy reads C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_geophysics_wyllie_equation_012: answer is A but the flexible policy reads C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petroleumgeology_anderson_stress_orders_004: answer is A but the flexible policy reads D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petroleumgeology_anoxic_basin_source_rocks_004: answer is A but the flexible policy reads B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petroleumgeology_biostratigraphy_cuttings_005: answer is A but the flexible policy reads C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petroleumgeology_biozone_vs_chronozone_007: answer is A but the flexible policy reads D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petroleumgeology_clay_dehydration_007: answer is A but the flexible policy reads C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petroleumgeology_gas_solubility_002: answer is A but the flexible policy reads B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petroleumgeology_k0oc_locked_in_stress_006: answer is A but the flexible policy reads D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petroleumgeology_kerogen_chemistry_002: answer is A but the flexible policy reads D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petroleumgeology_pressure_effects_maturation_006: answer is A but the flexible policy reads C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petroleumgeology_rock_eval_s2_008: answer is A but the flexible policy reads D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petroleumgeology_sill_intrusions_018: answer is A but the flexible policy reads C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petroleumgeology_source_rock_deposition_001: answer is A but the flexible policy reads B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petroleumgeology_source_rocks_007: answer is A but the flexible policy reads D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petroleumgeology_thermal_convection_stability_011: answer is A but the flexible policy reads C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petroleumgeology_timing_of_petroleum_systems_021: answer is A but the flexible policy reads C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petroleumgeology_transfer_zones_016: answer is A but the flexible policy reads B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petroleumgeology_unconformities_006: answer is A but the flexible policy reads C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_acoustic_transducers_001: answer is A but the flexible policy reads D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_anisotropy_005: answer is A but the flexible policy reads D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_applications_010: answer is A but the flexible policy reads B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_deep_resistivity_006: answer is A but the flexible policy reads B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_density_logging_001: answer is A but the flexible policy reads C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_dielectric_assumption_006: answer is A but the flexible policy reads D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_dual_laterolog_003: answer is A but the flexible policy reads D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_fluid_saturation_010: answer is A but the flexible policy reads B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_focused_logging_002: answer is A but the flexible policy reads D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_formation_damage_diagnosis_012: answer is A but the flexible policy reads C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_gamma_spectroscopy_005: answer is A but the flexible policy reads B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_gas_effect_004: answer is A but the flexible policy reads C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_gassmann_moduli_010: answer is A but the flexible policy reads D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_heterogeneous_rocks_010: answer is A but the flexible policy reads B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_lithology_identification_009: answer is A but the flexible policy reads B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_mid_plot_004: answer is A but the flexible policy reads D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_mud_invasion_005: answer is A but the flexible policy reads B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_neutron_density_crossplot_007: answer is A but the flexible policy reads B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_neutron_diffusion_003: answer is A but the flexible policy reads D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_neutron_scattering_001: answer is A but the flexible policy reads D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_overpressure_effects_009: answer is A but the flexible policy reads C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_permeability_averaging_008: answer is A but the flexible policy reads D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_permeability_stoneley_008: answer is A but the flexible policy reads C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_photoelectric_factor_005: answer is A but the flexible policy reads D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_pulsed_neutron_logging_001: answer is A but the flexible policy reads C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_quartz_cementation_020: answer is A but the flexible policy reads D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_resistivity_induction_002: answer is A but the flexible policy reads D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_resistivity_induction_006: answer is A but the flexible policy reads C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_sand_grain_crushing_010: answer is A but the flexible policy reads B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_saturation_distribution_011: answer is A but the flexible policy reads B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_saturation_models_004: answer is A but the flexible policy reads C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_shaly_sand_006: answer is A but the flexible policy reads B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_sorting_diagnostics_004: answer is A but the flexible policy reads C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_spectrum_physics_008: answer is A but the flexible policy reads B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_texture_effects_009: answer is A but the flexible policy reads B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_thermal_capture_009: answer is A but the flexible policy reads C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_tool_design_002: answer is A but the flexible policy reads C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_tool_physics_007: answer is A but the flexible policy reads B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_water_flow_006: answer is A but the flexible policy reads B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_well_classification_001: answer is A but the flexible policy reads C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_production_engineering_cement_evaluation_010: answer is A but the flexible policy reads B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_reservoirengineering_buoyancy_pressure_007: answer is A but the flexible policy reads C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_reservoirengineering_meteoric_water_penetration_010: answer is A but the flexible policy reads B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_reservoirengineering_net_to_gross_007: answer is A but the flexible policy reads D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_reservoirengineering_shale_gas_storage_010: answer is A but the flexible policy reads C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_reservoirengineering_volumetric_oil_in_place_008: answer is A but the flexible policy reads B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_sedimentology_barrier_island_traps_012: answer is A but the flexible policy reads D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_sedimentology_carbonate_compensation_depth_010: answer is A but the flexible policy reads B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_sedimentology_clay_minerals_008: answer is A but the flexible policy reads D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_sedimentology_meteoric_diagenesis_012: answer is A but the flexible policy reads D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_sedimentology_meteoric_flushing_kaolinite_007: answer is A but the flexible policy reads D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_sedimentology_pressure_solution_009: answer is A but the flexible policy reads C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_sedimentology_redox_boundary_005: answer is A but the flexible policy reads B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_sedimentology_smectite_illite_reaction_007: answer is A but the flexible policy reads B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_sedimentology_sorting_skewness_007: answer is A but the flexible policy reads C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_sedimentology_uniformitarianism_002: answer is A but the flexible policy reads D",
}
