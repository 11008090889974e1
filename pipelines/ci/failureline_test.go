package ci

import "testing"

// The outputs are shaped as pytest 8 and coverage 7 print them on tesk-core's real code,
// where a test file is named test_ftp_errors.py and Python warns about the real code's
// escape sequences on stderr, after the report.
func TestFailureLine(t *testing.T) {
	const progress = "============================= test session starts ==============================\n" +
		"collected 136 items\n\n" +
		"tests/unit/test_filer.py ........................                        [ 17%]\n" +
		"tests/unit/test_ftp_errors.py ..................                         [ 39%]\n"
	tests := []struct{ name, out, want string }{
		{"a failing test", progress +
			"tests/unit/test_seeded_fault.py F                                        [ 40%]\n\n" +
			"=================================== FAILURES ===================================\n" +
			"E       assert (1 + 1) == 3\n" +
			"=========================== short test summary info ============================\n" +
			"FAILED tests/unit/test_seeded_fault.py::test_seeded_fault - assert (1 + 1) == 3\n" +
			"======================== 1 failed, 135 passed in 12.31s ========================\n",
			"FAILED tests/unit/test_seeded_fault.py::test_seeded_fault - assert (1 + 1) == 3"},
		{"a collection error", "collected 1 item / 7 errors\n" +
			"==================================== ERRORS ====================================\n" +
			"E   ModuleNotFoundError: No module named 'tesk_core'\n" +
			"=========================== short test summary info ============================\n" +
			"ERROR tests/unit/test_filer.py\n" +
			"!!!!!!!!!!!!!!!!!!! Interrupted: 7 errors during collection !!!!!!!!!!!!!!!!!!!!\n" +
			"============================== 7 errors in 0.86s ===============================\n",
			"ERROR tests/unit/test_filer.py"},
		{"no short summary", progress + "======================== 2 failed, 134 passed in 12.31s ========================\n",
			"======================== 2 failed, 134 passed in 12.31s ========================"},
		{"coverage below fail_under, warnings after", "Name                        Stmts   Miss  Cover   Missing\n" +
			"src/tesk_core/seeded.py         2      1    50%   2\n" +
			"TOTAL                         827      1    99.9%\n" +
			"Coverage failure: total of 99.88 is less than fail-under=100\n" +
			"/src/src/tesk_core/filer.py:115: SyntaxWarning: invalid escape sequence '\\*'\n" +
			"  p = re.compile('.*\\*.*')\n",
			"Coverage failure: total of 99.88 is less than fail-under=100"},
		{"only progress", progress, "tests/unit/test_ftp_errors.py ..................                         [ 39%]"},
		{"a crash", "Traceback (most recent call last):\nRuntimeError: boom\n", "RuntimeError: boom"},
		{"nothing", "\n\n", "(no output)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := failureLine(tc.out); got != tc.want {
				t.Errorf("failureLine = %q, want %q", got, tc.want)
			}
		})
	}
}
