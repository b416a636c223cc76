// Research questions for research-bot (Anthropic): searches, page fetches (sometimes in
// parallel), extended thinking, and cited answers.
import type { ConversationBuilder, ToolOutcome, TurnEndReason } from "./builder";

export type Source = { title: string; url: string; snippet: string };

export type ResearchStep =
  | { kind: "search"; thinking?: string; say?: string; query: string; results: Source[] }
  | { kind: "fetch"; thinking?: string; say?: string; pages: Array<{ url: string; text: ToolOutcome }> };

export type ResearchTurn = { question: string; steps: ResearchStep[]; answerThinking: string; answer: string };

export function searchResults(results: Source[]): string {
  return results.map((r, i) => `${i + 1}. ${r.title}\n   ${r.url}\n   ${r.snippet}`).join("\n");
}

/** Plays a research turn; `end: null` leaves the turn open. */
export function researchTurn(
  conv: ConversationBuilder,
  turn: ResearchTurn,
  o: { end?: TurnEndReason | null; thinkMs?: number; stopBeforeAnswer?: boolean } = {},
): void {
  conv.user(turn.question, o.thinkMs);
  for (const s of turn.steps) {
    const common = { ...(s.thinking ? { reasoning: s.thinking } : {}), ...(s.say ? { text: s.say } : {}) };
    if (s.kind === "search") {
      conv.step({ ...common, tools: [{ name: "web_search", args: { query: s.query, max_results: 5 } }] });
      conv.respond([{ response: searchResults(s.results), durationMs: conv.rng.int(900, 2600) }]);
    } else {
      conv.step({ ...common, tools: s.pages.map((p) => ({ name: "fetch_url", args: { url: p.url } })) });
      conv.respond(s.pages.map((p) => (typeof p.text === "string" ? { response: p.text, durationMs: conv.rng.int(600, 4000) } : p.text)));
    }
  }
  if (o.stopBeforeAnswer) return;
  conv.step({ ...(turn.answerThinking ? { reasoning: turn.answerThinking } : {}), text: turn.answer });
  if (o.end !== null) conv.endTurn(o.end ?? "completed");
}

export const FASTING: ResearchTurn[] = [
  {
    question: "Summarize the current evidence on intermittent fasting and longevity in humans. Keep it to what RCTs and large cohorts show.",
    steps: [
      {
        kind: "search",
        thinking: "Human longevity outcomes are hard to measure directly; the evidence is mostly surrogate markers from RCTs plus observational cohorts. I should look for recent meta-analyses and the big RCTs (CALERIE is caloric restriction, not IF, but relevant as a comparison).",
        say: "I'll start with recent meta-analyses of randomized trials.",
        query: "intermittent fasting randomized controlled trials meta-analysis 2024 mortality biomarkers",
        results: [
          { title: "Intermittent fasting and obesity-related health outcomes: an umbrella review of meta-analyses of RCTs", url: "https://jamanetwork.com/journals/jamanetworkopen/fullarticle/2787032", snippet: "Umbrella review of 11 meta-analyses (130 RCTs)… moderate-quality evidence for weight loss and improved cardiometabolic markers…" },
          { title: "Time-restricted eating versus daily calorie restriction — NEJM", url: "https://www.nejm.org/doi/full/10.1056/NEJMoa2114833", snippet: "12-month RCT, 139 adults with obesity: TRE plus calorie restriction was not superior to calorie restriction alone…" },
          { title: "CALERIE 2: effects of 2 years of caloric restriction on aging biomarkers", url: "https://www.nature.com/articles/s43587-022-00357-y", snippet: "Moderate CR slowed the pace of biological aging (DunedinPACE)…" },
        ],
      },
      {
        kind: "fetch",
        thinking: "Open the umbrella review and the NEJM trial to get the actual effect sizes.",
        pages: [
          { url: "https://jamanetwork.com/journals/jamanetworkopen/fullarticle/2787032", text: "Results: … IF was associated with reductions in weight (moderate certainty), waist circumference, fat mass, LDL-C, triglycerides, and fasting insulin… No trial reported mortality outcomes…" },
          { url: "https://www.nejm.org/doi/full/10.1056/NEJMoa2114833", text: "At 12 months, mean weight loss was 8.0 kg in the TRE group and 6.3 kg in the control group (difference −1.8 kg; 95% CI −4.0 to 0.4)…" },
        ],
      },
    ],
    answerThinking: "Synthesize: no human RCT measures lifespan; IF ≈ CR for weight and markers; biological-age evidence is from CR (CALERIE), not IF.",
    answer:
      "**Short version:** there is no direct human evidence that intermittent fasting (IF) extends lifespan. What we have:\n\n" +
      "1. **Cardiometabolic markers improve**, mostly via weight loss — an umbrella review of 130 RCTs found moderate-certainty benefits for weight, LDL, triglycerides and insulin [1].\n" +
      "2. **IF is not clearly better than plain calorie restriction**: in a 12-month RCT, time-restricted eating plus CR lost 1.8 kg more than CR alone, not significant [2].\n" +
      "3. **Biological-aging signals** come from caloric restriction, not IF: CALERIE 2 slowed DunedinPACE modestly [3].\n\n" +
      "No trial reports mortality; longevity claims extrapolate from animal studies.\n\n[1] JAMA Netw Open 2021 · [2] NEJM 2022 · [3] Nature Aging 2023",
  },
  {
    question: "What about the 2024 AHA abstract that linked 8-hour time-restricted eating to higher cardiovascular death?",
    steps: [
      {
        kind: "search",
        thinking: "This was a conference abstract (AHA EPI|Lifestyle 2024) using NHANES dietary recalls — observational, two 24-h recalls only. Need the details and criticism.",
        query: "AHA 2024 abstract 8-hour time-restricted eating 91% higher cardiovascular death NHANES criticism",
        results: [
          { title: "8-hour time-restricted eating linked to a 91% higher risk of cardiovascular death", url: "https://newsroom.heart.org/news/8-hour-time-restricted-eating-linked-to-a-91-higher-risk-of-cardiovascular-death", snippet: "Preliminary research presented at EPI|Lifestyle Scientific Sessions 2024… NHANES 2003–2018, ~20,000 adults…" },
          { title: "Expert reaction to conference abstract on time-restricted eating and CVD death", url: "https://www.sciencemediacentre.org/expert-reaction-to-conference-abstract-on-time-restricted-eating", snippet: "Eating window estimated from two days of dietary recall… residual confounding… not peer reviewed…" },
        ],
      },
    ],
    answerThinking: "Weak evidence: abstract, observational, two-day recall, small exposed group. Say so.",
    answer:
      "That finding is **weak evidence** and should not change the picture above:\n\n" +
      "- It was a conference abstract, not a peer-reviewed paper [1].\n" +
      "- The “8-hour eaters” were classified from **two 24-hour dietary recalls** in NHANES — a very noisy measure of habitual eating windows [2].\n" +
      "- Observational design: people who eat in short windows differ in shift work, smoking, and illness; confounding is likely [2].\n\n" +
      "Treat it as a hypothesis to test, not a risk estimate.\n\n[1] AHA newsroom, Mar 2024 · [2] Science Media Centre expert reaction",
  },
];

export const AI_ACT_QUESTION =
  "Compare the EU AI Act's obligations for general-purpose AI models with what the 2023 US executive order on AI required from model developers.";

export const AI_ACT_SEARCH: Source[] = [
  { title: "Regulation (EU) 2024/1689 (Artificial Intelligence Act) — EUR-Lex", url: "https://eur-lex.europa.eu/eli/reg/2024/1689/oj", snippet: "Chapter V: general-purpose AI models… Article 53 obligations for providers… Article 55 systemic risk…" },
  { title: "Executive Order 14110 on Safe, Secure, and Trustworthy AI", url: "https://www.federalregister.gov/documents/2023/11/01/2023-24283/safe-secure-and-trustworthy-development-and-use-of-artificial-intelligence", snippet: "Sec. 4.2: reporting requirements for dual-use foundation models… 10^26 operations…" },
  { title: "GPAI Code of Practice — European Commission", url: "https://digital-strategy.ec.europa.eu/en/policies/contents-code-gpai", snippet: "The Code helps providers comply with Articles 53 and 55…" },
];

export const BATTERY_TURN: ResearchTurn = {
  question: "Survey the 2025 literature on sodium-ion batteries for grid storage: cost per kWh, cycle life, and who is manufacturing at scale.",
  steps: [
    {
      kind: "search",
      thinking: "Three sub-questions: cost, cycle life, manufacturers. Start broad, then look for BNEF/IEA numbers and CATL/BYD/HiNa announcements.",
      say: "Starting with recent reviews and market reports.",
      query: "sodium-ion battery grid storage 2025 cost per kWh cycle life review",
      results: [
        { title: "Sodium-ion batteries: present and future (Chem. Soc. Rev. 2025)", url: "https://pubs.rsc.org/en/content/articlelanding/2025/cs/d4cs00001a", snippet: "Layered oxide and Prussian white cathodes… 3,000–6,000 cycles for polyanionic chemistries…" },
        { title: "IEA — Batteries and Secure Energy Transitions", url: "https://www.iea.org/reports/batteries-and-secure-energy-transitions", snippet: "Sodium-ion could reach cost parity with LFP by the end of the decade…" },
      ],
    },
    {
      kind: "search",
      thinking: "Now manufacturers: CATL Naxtra, BYD's Xuzhou plant, HiNa, Natron (which shut down in 2025).",
      query: "CATL Naxtra sodium-ion mass production 2025 GWh BYD HiNa Natron",
      results: [
        { title: "CATL unveils Naxtra sodium-ion battery, mass production in 2025", url: "https://www.catl.com/en/news/6401.html", snippet: "175 Wh/kg… mass production in December 2025…" },
        { title: "Natron Energy ceases operations", url: "https://www.energy-storage.news/natron-energy-ceases-operations/", snippet: "US sodium-ion startup Natron shut down in September 2025 after failing to raise…" },
      ],
    },
    {
      kind: "fetch",
      thinking: "Get the review's table of cycle-life numbers and the IEA cost projection.",
      pages: [
        { url: "https://pubs.rsc.org/en/content/articlelanding/2025/cs/d4cs00001a", text: "Table 3. Cycle life at 80% capacity retention: NFPP/hard carbon 4,000–6,000; layered oxide 2,000–3,500; Prussian white 1,500–3,000…" },
        { url: "https://www.iea.org/reports/batteries-and-secure-energy-transitions", text: "…sodium-ion cell costs were estimated at USD 70–80/kWh in 2024 for early production lines, versus about USD 55/kWh for LFP…" },
      ],
    },
  ],
  answerThinking: "",
  answer: "",
};

export const HEAT_PUMPS: ResearchTurn = {
  question: "How do air-source heat pumps perform in cold climates (below −15 °C)? I need real field data, not manufacturer specs.",
  steps: [
    {
      kind: "search",
      thinking: "Field studies: NEEP cold-climate list is spec-based; better are the Canadian (NRCan) field trials, the Joule 2023 paper on cold-climate performance, and the Norwegian/Swedish data.",
      query: "cold climate air source heat pump field study COP below -15C measured",
      results: [
        { title: "Heat pumps in cold climates: a field performance review (Joule, 2023)", url: "https://www.cell.com/joule/fulltext/S2542-4351(23)00351-6", snippet: "Measured seasonal COPs of 2.0–3.5 in regions with winter lows below −20 °C…" },
        { title: "Cold Climate Air Source Heat Pump field trial — Natural Resources Canada", url: "https://natural-resources.canada.ca/energy-efficiency/cold-climate-heat-pump-field-trial", snippet: "At −20 °C, measured COP averaged 1.8; backup heat covered 6% of annual load…" },
      ],
    },
    {
      kind: "fetch",
      pages: [{ url: "https://www.cell.com/joule/fulltext/S2542-4351(23)00351-6", text: "…Across 16 field studies, COP at −15 °C ranged from 1.5 to 2.7; seasonal performance factors remained above 2 even in Nordic climates…" }],
    },
  ],
  answerThinking: "Field data consistently show COP ~1.5–2.7 at −15 °C and seasonal factors above 2.",
  answer:
    "Field data say cold-climate heat pumps still beat resistance heating well below −15 °C:\n\n" +
    "- **At −15 °C** measured COP ranges **1.5–2.7** across 16 field studies [1].\n" +
    "- **At −20 °C** the Canadian field trial measured an average COP of **1.8**; backup heat covered only ~6% of the annual load [2].\n" +
    "- **Seasonal** performance stays above 2 even in Nordic climates [1].\n\n" +
    "Caveat: results depend heavily on sizing and installation quality.\n\n[1] Joule 2023 review · [2] NRCan field trial",
};

export const REMOTE_WORK: ResearchTurn = {
  question: "Is there good evidence that fully remote work lowers productivity compared with hybrid?",
  steps: [
    {
      kind: "search",
      thinking: "Key sources: Bloom et al. 2024 Nature RCT (hybrid at Trip.com), Emanuel & Harrington (call-center remote productivity), Gibbs et al. on IT workers.",
      query: "fully remote vs hybrid productivity randomized trial Bloom 2024 Nature Trip.com",
      results: [
        { title: "Hybrid working from home improves retention without damaging performance (Nature 2024)", url: "https://www.nature.com/articles/s41586-024-07500-2", snippet: "RCT with 1,612 employees at Trip.com: hybrid reduced quit rates by one third; no effect on performance reviews or promotions…" },
        { title: "Working Remotely? Selection, Treatment, and the Market for Remote Work (Emanuel & Harrington)", url: "https://www.aeaweb.org/articles?id=10.1257/app.20220179", snippet: "Remote call-center workers were 4% less productive when moved remote…" },
      ],
    },
  ],
  answerThinking: "Hybrid: good RCT evidence of no harm. Fully remote: mixed, some negative effects from specific settings.",
  answer:
    "The evidence separates **hybrid** from **fully remote**:\n\n" +
    "- Hybrid: a large RCT found **no effect on performance** and a one-third drop in quits [1].\n" +
    "- Fully remote: evidence is thinner and mixed; in a call center, moving remote reduced productivity by ~4% [2].\n\n" +
    "So: good evidence hybrid does not hurt productivity; weaker, context-specific evidence that fully remote can.\n\n[1] Bloom et al., Nature 2024 · [2] Emanuel & Harrington, AEJ: Applied",
};

export const MICROPLASTICS: ResearchTurn[] = [
  {
    question: "What do we actually know about microplastics in human tissue and their health effects? Separate measurement from harm.",
    steps: [
      {
        kind: "search",
        thinking: "Two literatures: detection studies (blood, placenta, arterial plaque, brain) and health-outcome studies. The NEJM 2024 carotid plaque study is the main outcome study; measurement methods (Py-GC/MS) have contamination problems.",
        say: "Looking for the key detection and outcome studies.",
        query: "microplastics human tissue NEJM 2024 carotid plaque cardiovascular events",
        results: [
          { title: "Microplastics and Nanoplastics in Atheromas and Cardiovascular Events (NEJM 2024)", url: "https://www.nejm.org/doi/full/10.1056/NEJMoa2309822", snippet: "257 patients… plaques with detectable polyethylene had a higher risk of MI, stroke or death (HR 4.53)…" },
          { title: "Bioaccumulation of microplastics in decedent human brains (Nature Medicine 2025)", url: "https://www.nature.com/articles/s41591-024-03453-1", snippet: "Higher concentrations in brain than liver or kidney… increase between 2016 and 2024 samples…" },
        ],
      },
      {
        kind: "search",
        thinking: "Need the methodological criticism: pyrolysis GC-MS can confuse lipids with polyethylene.",
        query: "microplastics brain study criticism pyrolysis GC-MS lipid interference polyethylene false positive",
        results: [
          { title: "Methodological concerns about microplastic quantification in human tissue", url: "https://www.nature.com/articles/s41591-025-03675-x", snippet: "Fatty tissues produce pyrolysis products that mimic polyethylene… concentrations may be overestimated…" },
        ],
      },
    ],
    answerThinking: "Measurement: found widely but quantities uncertain. Harm: one observational outcome study; causality unproven.",
    answer:
      "**Measurement:** microplastics are reported in blood, placenta, arterial plaque and brain [1][2], but the *amounts* are uncertain — the usual method (pyrolysis GC-MS) can mistake fats for polyethylene, so fatty tissues such as brain may be overestimated [3].\n\n" +
      "**Harm:** the strongest human evidence is one observational study: patients whose carotid plaque contained polyethylene had about 4.5× the risk of heart attack, stroke or death over 34 months [1]. That is an association in 257 people, not proof of causation.\n\n" +
      "[1] Marfella et al., NEJM 2024 · [2] Nihart et al., Nature Medicine 2025 · [3] Nature Medicine correspondence, 2025",
  },
];
