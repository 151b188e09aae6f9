/-! Truth of formulas at a world of a model (a small stand-in for ProofChecker's Logos). -/

inductive Formula where
  | atom : Nat → Formula
  | neg : Formula → Formula
  | imp : Formula → Formula → Formula

structure Model where
  valuation : Nat → Prop

def truthAt (M : Model) : Formula → Prop
  | .atom n => M.valuation n
  | .neg φ => ¬ truthAt M φ
  | .imp φ ψ => truthAt M φ → truthAt M ψ

theorem truth_at_neg (M : Model) (φ : Formula) : truthAt M (.neg φ) ↔ ¬ truthAt M φ := by
  sorry

theorem truth_at_imp (M : Model) (φ ψ : Formula) :
    truthAt M (.imp φ ψ) ↔ (truthAt M φ → truthAt M ψ) := by
  sorry
