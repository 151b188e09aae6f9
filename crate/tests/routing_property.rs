//! render → parse is the identity on generated structs (xorshift64*, fixed seed).
//!
//! The generator covers what real task files hold, including Markdown inline syntax in free
//! text and list items, `|` and `:` in fields, paths that need code spans, notes with
//! parentheses, extra fields and sections. It stays inside the documented contract: field
//! values are plain text (no Markdown syntax), list items do not start with block syntax,
//! free text has no `#`/`##` headings or setext underlines.

use nso::contracts::contract::*;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
    fn coin(&mut self) -> bool {
        self.next() & 1 == 1
    }
}

const INLINE: &[&str] = &[
    "alpha",
    "beta",
    "x1",
    "src/a.ts",
    "a_b_c",
    "**bold**",
    "*em*",
    "`code`",
    "`a|b`",
    "(paren)",
    "a: b",
    "✅",
    "🙂",
    "école",
    "<b>x</b>",
    "[link](u)",
    "50%",
    "#tag",
    "a-b",
    "1.5",
    "'q'",
    "\"dq\"",
    "x|y",
    "[x]",
];
const PLAIN: &[&str] = &[
    "alpha",
    "Beta",
    "x1",
    "2026-02-08T14:30:00Z",
    "a:b",
    "a | b",
    "(c)",
    "@me",
    "v1.2",
    "✅ ok",
    "école",
    "50%",
    "a/b",
    "x-y",
    "q,r",
];
const KEYS: &[&str] = &["Priority", "Owner", "Risk Level", "Ticket", "Estimate 2"];
const HEADINGS: &[&str] = &["Risks", "Log", "Open Points", "Appendix A", "Links"];
const PATHS: &[&str] = &[
    "src/a.ts",
    "docs/x.md",
    "src/__init__.py",
    "my file.txt",
    "a`b.md",
    "README",
    ".opencode/x-y/z.md",
    "*.md",
];

fn words(rng: &mut Rng, pool: &[&str], min: usize, max: usize) -> String {
    let n = min + rng.below(max - min + 1);
    (0..n).map(|_| rng.pick(pool)).collect::<Vec<_>>().join(" ")
}

fn inline(rng: &mut Rng) -> String {
    words(rng, INLINE, 1, 5)
}

fn plain(rng: &mut Rng) -> String {
    words(rng, PLAIN, 1, 3)
}

fn opt_plain(rng: &mut Rng) -> Option<String> {
    rng.coin().then(|| plain(rng))
}

fn free_text(rng: &mut Rng) -> String {
    let n = 1 + rng.below(3);
    let mut blocks = Vec::new();
    for _ in 0..n {
        blocks.push(match rng.below(5) {
            0 => format!("- {}\n- {}", inline(rng), inline(rng)),
            1 => format!("```\n{}\n\n\nend\n```", words(rng, INLINE, 1, 3)),
            2 => format!("### {}\n{}", rng.pick(HEADINGS), inline(rng)),
            _ => format!("{}\n{}", inline(rng), inline(rng)),
        });
    }
    blocks.join("\n\n")
}

fn items(rng: &mut Rng, max: usize) -> Vec<String> {
    (0..rng.below(max + 1)).map(|_| inline(rng)).collect()
}

fn checks(rng: &mut Rng) -> Vec<Checkbox> {
    (0..rng.below(4))
        .map(|_| Checkbox {
            text: inline(rng),
            checked: rng.coin(),
        })
        .collect()
}

fn extra_fields(rng: &mut Rng) -> Vec<ExtraField> {
    let mut keys: Vec<&str> = KEYS.to_vec();
    (0..rng.below(3))
        .map(|_| {
            let key = keys.remove(rng.below(keys.len()));
            ExtraField {
                key: key.to_string(),
                value: if rng.below(4) == 0 {
                    String::new()
                } else {
                    plain(rng)
                },
            }
        })
        .collect()
}

fn extra_sections(rng: &mut Rng) -> Vec<ExtraSection> {
    (0..rng.below(3))
        .map(|_| ExtraSection {
            heading: rng.pick(HEADINGS).to_string(),
            body: if rng.below(4) == 0 {
                String::new()
            } else {
                free_text(rng)
            },
        })
        .collect()
}

#[test]
fn contracts_round_trip() {
    let mut rng = Rng(1);
    for case in 0..3000 {
        let c = Contract {
            task_id: plain(&mut rng),
            agent: plain(&mut rng),
            workflow: plain(&mut rng),
            phase: opt_plain(&mut rng),
            created: opt_plain(&mut rng),
            delegated_by: opt_plain(&mut rng),
            objective: free_text(&mut rng),
            requirements_reference: if rng.coin() {
                free_text(&mut rng)
            } else {
                String::new()
            },
            success_criteria: checks(&mut rng),
            context_files: items(&mut rng, 3),
            instructions: items(&mut rng, 5),
            extra_fields: extra_fields(&mut rng),
            extra_sections: extra_sections(&mut rng),
        };
        let text = render_contract(&c, None).unwrap();
        assert_eq!(
            parse_contract(&text).as_ref(),
            Ok(&c),
            "case {case}:\n{text}"
        );
        assert_eq!(
            render_contract(&parse_contract(&text).unwrap(), None).unwrap(),
            text
        );
    }
}

#[test]
fn statuses_round_trip() {
    let mut rng = Rng(2);
    let statuses = [
        TaskStatus::Pending,
        TaskStatus::InProgress,
        TaskStatus::Blocked,
        TaskStatus::Complete,
        TaskStatus::Failed,
    ];
    for case in 0..3000 {
        let s = Status {
            task_id: opt_plain(&mut rng),
            status: statuses[rng.below(5)],
            last_update: opt_plain(&mut rng),
            progress: opt_plain(&mut rng),
            current_step: opt_plain(&mut rng),
            completed_steps: checks(&mut rng),
            remaining: checks(&mut rng),
            artifacts: items(&mut rng, 3),
            extra_fields: extra_fields(&mut rng),
            extra_sections: extra_sections(&mut rng),
        };
        let text = render_status(&s, None).unwrap();
        assert_eq!(parse_status(&text).as_ref(), Ok(&s), "case {case}:\n{text}");
    }
}

#[test]
fn results_round_trip() {
    let mut rng = Rng(3);
    for case in 0..3000 {
        let r = TaskResult {
            task_id: opt_plain(&mut rng),
            status: if rng.coin() {
                ResultStatus::Complete
            } else {
                ResultStatus::Failed
            },
            completed: opt_plain(&mut rng),
            duration: opt_plain(&mut rng),
            deliverables: (0..rng.below(4))
                .map(|_| Deliverable {
                    path: rng.pick(PATHS).to_string(),
                    note: if rng.coin() {
                        String::new()
                    } else {
                        inline(&mut rng)
                    },
                })
                .collect(),
            validation: (0..rng.below(4))
                .map(|_| ValidationEntry {
                    name: rng.pick(KEYS).to_string(),
                    value: if rng.coin() {
                        String::new()
                    } else {
                        plain(&mut rng)
                    },
                })
                .collect(),
            notes: if rng.coin() {
                free_text(&mut rng)
            } else {
                String::new()
            },
            extra_fields: extra_fields(&mut rng),
            extra_sections: extra_sections(&mut rng),
        };
        let text = render_result(&r, None).unwrap();
        assert_eq!(parse_result(&text).as_ref(), Ok(&r), "case {case}:\n{text}");
    }
}

#[test]
fn questions_round_trip() {
    let mut rng = Rng(4);
    for case in 0..3000 {
        let n = 1 + rng.below(3);
        let q = Questions {
            task_id: opt_plain(&mut rng),
            agent: rng
                .coin()
                .then(|| rng.pick(&["Builder", "lean-planner", "qa"]).to_string()),
            questions: (0..n).map(|_| inline(&mut rng)).collect(),
            understood: if rng.coin() {
                free_text(&mut rng)
            } else {
                String::new()
            },
            unclear: if rng.coin() {
                free_text(&mut rng)
            } else {
                String::new()
            },
            extra_fields: extra_fields(&mut rng),
            extra_sections: extra_sections(&mut rng),
        };
        let text = render_questions(&q, None).unwrap();
        assert_eq!(
            parse_questions(&text).as_ref(),
            Ok(&q),
            "case {case}:\n{text}"
        );
    }
}
