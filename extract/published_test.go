package extract

import (
	"encoding/csv"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/fixtures"
)

// publishedModels are the models whose responses the fixture holds, with
// the number of correct answers on FormationEval's published leaderboard.
var publishedModels = []struct {
	name    string
	correct int
}{
	{"claude-3.5-haiku", 424},
	{"gpt-oss-120b", 458},
	{"nemotron-3-nano-30b-a3b", 391},
}

// publishedRow is one (question, model) pair of the fixture.
type publishedRow struct {
	question string
	model    string
	answer   string // the letter upstream extracted, "" when none
	correct  bool
	pattern  string // the upstream rule name, "failed" when none
	raw      string
}

// readPublished reads FormationEval's published per-question results for
// three models from the shared fixtures (it never lives in the repository).
func readPublished(t *testing.T) []publishedRow {
	t.Helper()
	path := fixtures.Path(t, "formationeval", "responses_3_models.csv")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	records, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(records) < 2 {
		t.Fatalf("%s: no data rows", path)
	}
	col := map[string]int{}
	for i, name := range records[0] {
		col[name] = i
	}
	need := func(name string) int {
		i, ok := col[name]
		if !ok {
			t.Fatalf("%s: no column %q", path, name)
		}
		return i
	}
	var rows []publishedRow
	for _, rec := range records[1:] {
		for _, m := range publishedModels {
			rows = append(rows, publishedRow{
				question: rec[need("question_id")],
				model:    m.name,
				answer:   rec[need(m.name+"_answer")],
				correct:  rec[need(m.name+"_correct")] == "True",
				pattern:  rec[need(m.name+"_pattern")],
				raw:      rec[need(m.name+"_raw")],
			})
		}
	}
	return rows
}

// TestFormationEvalPublished checks formationeval-v0.1 against every
// letter and rule name that FormationEval published for three models.
func TestFormationEvalPublished(t *testing.T) {
	rows := readPublished(t)
	if len(rows) != 1515 {
		t.Fatalf("got %d (question, model) pairs, want 1515", len(rows))
	}
	p, err := Lookup(FormationEval)
	if err != nil {
		t.Fatal(err)
	}
	correct := map[string]int{}
	for _, r := range rows {
		if r.correct {
			correct[r.model]++
		}
		want := Result{Letter: r.answer, Pattern: r.pattern}
		if r.pattern == "failed" {
			want.Pattern = ""
		}
		got := p.Extract(r.raw)
		if got.Letter != want.Letter || got.Pattern != want.Pattern {
			t.Errorf("%s %s: got %s/%s, upstream %s/%s for %q", r.model, r.question, got.Letter, got.Pattern, want.Letter, want.Pattern, r.raw)
		}
		// Upstream stored responses over 500 characters as 497 of them and
		// "...": only a Final result may be trusted for those.
		if truncated := len([]rune(r.raw)) == 500 && strings.HasSuffix(r.raw, "..."); truncated && !got.Final {
			t.Errorf("%s %s: truncated response not Final under %s", r.model, r.question, FormationEval)
		}
	}
	for _, m := range publishedModels {
		if correct[m.name] != m.correct {
			t.Errorf("%s: %d correct, leaderboard says %d", m.name, correct[m.name], m.correct)
		}
	}
}

// flexibleDisagreements is every published response where flexible reads
// a different letter than formationeval-v0.1, as "model question
// formationeval-letter flexible-letter" ("-" for none), sorted. Each one
// was read by hand, and flexible reads what the response says every time:
//
//   - nemotron "Answer: B", "Answer: C", "Answer: D" (88): upstream takes
//     the first character, the A of "Answer";
//   - gpt-oss "answer B.B", "answer C.C", "answer D.D" (11): the same;
//   - gpt-oss "correct.A" (1): upstream takes the C of "correct".
var flexibleDisagreements = []string{
	"gpt-oss-120b formationeval_v0.1_geophysics_sampling_nyquist_005 A B",
	"gpt-oss-120b formationeval_v0.1_geophysics_silica_diagenesis_reflectors_006 A D",
	"gpt-oss-120b formationeval_v0.1_geophysics_wave_types_002 A D",
	"gpt-oss-120b formationeval_v0.1_petroleumgeology_clay_dehydration_007 A C",
	"gpt-oss-120b formationeval_v0.1_petroleumgeology_sill_intrusions_018 A C",
	"gpt-oss-120b formationeval_v0.1_petroleumgeology_stratigraphy_scope_001 A C",
	"gpt-oss-120b formationeval_v0.1_petroleumgeology_trap_style_rift_stage_007 A C",
	"gpt-oss-120b formationeval_v0.1_petrophysics_mid_plot_004 A D",
	"gpt-oss-120b formationeval_v0.1_petrophysics_neutron_porosity_009 A B",
	"gpt-oss-120b formationeval_v0.1_petrophysics_nmr_relaxation_002 A C",
	"gpt-oss-120b formationeval_v0.1_petrophysics_resistivity_principles_003 C A",
	"gpt-oss-120b formationeval_v0.1_petrophysics_volumetric_pe_012 A B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_drilling_engineering_lwd_data_acquisition_002 A D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_drilling_engineering_lwd_sonic_007 A B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_drillingengineering_mwd_resistivity_004 A C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_geophysics_3d_acquisition_008 A C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_geophysics_amplitude_vs_timeshift_005 A B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_geophysics_blanketing_effect_007 A C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_geophysics_heat_flow_calculation_004 A D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_geophysics_pressure_saturation_discrimination_009 A D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_geophysics_reflection_seismology_001 A B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_geophysics_rpt_cement_ntg_008 A B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_geophysics_sedimentation_cooling_009 A B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_geophysics_silica_diagenesis_reflectors_006 A D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_geophysics_timeshift_interpretation_006 A D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_geophysics_vp_vs_interpretation_006 A C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_geophysics_wyllie_equation_012 A C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petroleumgeology_anderson_stress_orders_004 A D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petroleumgeology_anoxic_basin_source_rocks_004 A B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petroleumgeology_biostratigraphy_cuttings_005 A C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petroleumgeology_biozone_vs_chronozone_007 A D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petroleumgeology_clay_dehydration_007 A C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petroleumgeology_gas_solubility_002 A B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petroleumgeology_k0oc_locked_in_stress_006 A D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petroleumgeology_kerogen_chemistry_002 A D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petroleumgeology_pressure_effects_maturation_006 A C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petroleumgeology_rock_eval_s2_008 A D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petroleumgeology_sill_intrusions_018 A C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petroleumgeology_source_rock_deposition_001 A B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petroleumgeology_source_rocks_007 A D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petroleumgeology_thermal_convection_stability_011 A C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petroleumgeology_timing_of_petroleum_systems_021 A C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petroleumgeology_transfer_zones_016 A B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petroleumgeology_unconformities_006 A C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_acoustic_transducers_001 A D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_anisotropy_005 A D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_applications_010 A B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_deep_resistivity_006 A B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_density_logging_001 A C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_dielectric_assumption_006 A D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_dual_laterolog_003 A D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_fluid_saturation_010 A B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_focused_logging_002 A D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_formation_damage_diagnosis_012 A C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_gamma_spectroscopy_005 A B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_gas_effect_004 A C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_gassmann_moduli_010 A D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_heterogeneous_rocks_010 A B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_lithology_identification_009 A B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_mid_plot_004 A D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_mud_invasion_005 A B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_neutron_density_crossplot_007 A B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_neutron_diffusion_003 A D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_neutron_scattering_001 A D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_overpressure_effects_009 A C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_permeability_averaging_008 A D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_permeability_stoneley_008 A C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_photoelectric_factor_005 A D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_pulsed_neutron_logging_001 A C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_quartz_cementation_020 A D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_resistivity_induction_002 A D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_resistivity_induction_006 A C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_sand_grain_crushing_010 A B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_saturation_distribution_011 A B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_saturation_models_004 A C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_shaly_sand_006 A B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_sorting_diagnostics_004 A C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_spectrum_physics_008 A B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_texture_effects_009 A B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_thermal_capture_009 A C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_tool_design_002 A C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_tool_physics_007 A B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_water_flow_006 A B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_petrophysics_well_classification_001 A C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_production_engineering_cement_evaluation_010 A B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_reservoirengineering_buoyancy_pressure_007 A C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_reservoirengineering_meteoric_water_penetration_010 A B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_reservoirengineering_net_to_gross_007 A D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_reservoirengineering_shale_gas_storage_010 A C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_reservoirengineering_volumetric_oil_in_place_008 A B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_sedimentology_barrier_island_traps_012 A D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_sedimentology_carbonate_compensation_depth_010 A B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_sedimentology_clay_minerals_008 A D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_sedimentology_meteoric_diagenesis_012 A D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_sedimentology_meteoric_flushing_kaolinite_007 A D",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_sedimentology_pressure_solution_009 A C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_sedimentology_redox_boundary_005 A B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_sedimentology_smectite_illite_reaction_007 A B",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_sedimentology_sorting_skewness_007 A C",
	"nemotron-3-nano-30b-a3b formationeval_v0.1_sedimentology_uniformitarianism_002 A D",
}

// TestFlexiblePublished runs flexible over the published responses and
// pins the exact list of responses where it disagrees with the upstream
// extractor.
func TestFlexiblePublished(t *testing.T) {
	rows := readPublished(t)
	fe, _ := Lookup(FormationEval)
	fl, _ := Lookup(Flexible)
	var got []string
	dash := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	for _, r := range rows {
		a, b := fe.Extract(r.raw).Letter, fl.Extract(r.raw).Letter
		if a != b {
			got = append(got, fmt.Sprintf("%s %s %s %s", r.model, r.question, dash(a), dash(b)))
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, flexibleDisagreements) {
		t.Errorf("flexible disagrees with %s on %d responses, want %d; got:\n%s", FormationEval, len(got), len(flexibleDisagreements), strings.Join(got, "\n"))
	}
}
