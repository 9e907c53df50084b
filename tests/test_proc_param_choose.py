"""A procedure's parameters stay plain data while the game waits for a decision inside it."""
import os

from interpreter import load

HERE = os.path.dirname(os.path.abspath(__file__))


def test_procedure_frame_with_params_survives_a_decision():
    rs = load(os.path.join(HERE, "rulesets", "proc_param_choose"))
    st = rs.new_game(2, seed=0)
    st.copy()  # marshal round-trip of the waiting state
    legal = st.legal_actions()
    assert [a.label for a in legal] == ["choose a", "choose b"]
    assert st.apply(legal[1])
    assert st.is_terminal and st.vars["got"] == [None, "b"]
