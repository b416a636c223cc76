// Customer-support chats for support-agent (gpt-4o): order lookups, refunds, help-center
// questions. Each chat is one conversation; the agent sends no ids, so SightDesk derives them.
import type { ConversationBuilder, ToolOutcome, ToolSpec } from "./builder";
import type { Rng } from "./rng";

export type Order = {
  id: string;
  item: string;
  price: number;
  status: "processing" | "shipped" | "delivered";
  carrier: string;
  tracking: string;
  eta: string;
  email: string;
};

export type SupportStep = { say?: string; tools: ToolSpec[]; results: ToolOutcome[] };
export type SupportChat = {
  opening: string;
  steps: SupportStep[];
  reply: string;
  followup?: { message: string; steps: SupportStep[]; reply: string };
};

const ITEMS: Array<[string, number]> = [
  ["Acme Pro blender", 149.0],
  ["noise-cancelling headphones", 279.99],
  ['27" 4K monitor', 389.0],
  ["standing desk frame", 459.0],
  ["espresso grinder", 219.5],
  ["trail running shoes (EU 42)", 134.95],
  ["HEPA air purifier", 199.0],
  ["mechanical keyboard", 119.0],
  ["robot vacuum", 349.0],
  ["cast-iron skillet", 44.9],
  ["USB-C dock", 89.99],
  ["kids' bike helmet", 39.0],
  ["smart thermostat", 169.0],
  ["cork yoga mat", 59.0],
  ["ergonomic office chair", 429.0],
];
const CARRIERS = ["UPS", "DHL", "FedEx", "USPS"];
const DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"];
const FIRST = ["jana", "omar", "li.wei", "m.garcia", "tkowalski", "anna.b", "dev.patel", "sofia", "k.nakamura", "ben.o"];

export function makeOrders(rng: Rng, count: number): Order[] {
  return Array.from({ length: count }, (_, i) => {
    const [item, price] = ITEMS[i % ITEMS.length];
    const status = rng.pick(["processing", "shipped", "shipped", "delivered"] as const);
    return {
      id: `A-${10100 + i * 37 + rng.int(0, 30)}`,
      item,
      price,
      status,
      carrier: rng.pick(CARRIERS),
      tracking: `1Z${rng.alnum(16).toUpperCase()}`,
      eta: rng.pick(DAYS),
      email: `${rng.pick(FIRST)}${rng.int(1, 99)}@example.com`,
    };
  });
}

const masked = (email: string) => email.replace(/^(.).*(@.*)$/, "$1***$2");

export function lookupJson(o: Order): string {
  return JSON.stringify({
    order_id: o.id,
    status: o.status,
    items: [{ name: o.item, qty: 1, unit_price: o.price }],
    total: o.price,
    currency: "USD",
    carrier: o.status === "processing" ? null : o.carrier,
    tracking_number: o.status === "processing" ? null : o.tracking,
    estimated_delivery: o.status === "shipped" ? o.eta : null,
    customer_email: masked(o.email),
  });
}

const lookup = (o: Order): SupportStep => ({ tools: [{ name: "lookup_order", args: { order_id: o.id } }], results: [lookupJson(o)] });

function statusReply(o: Order): string {
  if (o.status === "processing") return `Your order ${o.id} (${o.item}) is being packed and should ship within one business day. You'll get an email with tracking as soon as it leaves the warehouse.`;
  if (o.status === "delivered") return `Order ${o.id} (${o.item}) shows as delivered by ${o.carrier} (tracking ${o.tracking}). If you can't find it, check with neighbours or your building's mailroom — and tell me if it's still missing tomorrow, I'll open a trace.`;
  return `Good news: order ${o.id} (${o.item}) shipped with ${o.carrier}, tracking number ${o.tracking}. It's expected on ${o.eta}.`;
}

const WHERE_OPENINGS = [
  (o: Order) => `Hi, where is my order ${o.id}?`,
  (o: Order) => `Hello, I ordered the ${o.item} last week (order ${o.id}) and it still hasn't arrived. Can you check?`,
  (o: Order) => `order ${o.id} status pls`,
  (o: Order) => `Can you tell me when my ${o.item} will be delivered? Order number ${o.id}.`,
  (o: Order) => `Tracking for ${o.id} hasn't updated in 3 days, is it lost??`,
];

const THANKS = ["Thanks!", "great, thank you", "Perfect, thanks a lot.", "ok thx", "Thank you, that helps."];
const WELCOME = [
  "You're welcome! Anything else I can help with?",
  "Happy to help — have a great day!",
  "Glad I could help. Enjoy your order!",
  "Any time! If anything else comes up, just message us.",
  "You're welcome. I'm here if you need anything else.",
];

export function whereChat(rng: Rng, o: Order, variant: number): SupportChat {
  const followup = rng.chance(0.5);
  const k = rng.int(0, THANKS.length - 1);
  return {
    opening: WHERE_OPENINGS[variant % WHERE_OPENINGS.length](o),
    steps: [lookup(o)],
    reply: statusReply(o),
    ...(followup ? { followup: { message: THANKS[k], steps: [], reply: WELCOME[k] } } : {}),
  };
}

const REFUND_OPENINGS = [
  (o: Order) => `I was charged twice for order ${o.id}, can you refund the duplicate?`,
  (o: Order) => `The ${o.item} from order ${o.id} arrived damaged. I'd like a refund please.`,
  (o: Order) => `I returned the ${o.item} (order ${o.id}) two weeks ago and still no refund.`,
];
const REFUND_REASONS = ["duplicate charge", "arrived damaged", "return received"];

export function refundChat(rng: Rng, o: Order, variant: number): SupportChat {
  const v = variant % REFUND_OPENINGS.length;
  return {
    opening: REFUND_OPENINGS[v](o),
    steps: [
      lookup(o),
      {
        say: "I can see the order. Issuing the refund now.",
        tools: [{ name: "refund_order", args: { order_id: o.id, amount: o.price, reason: REFUND_REASONS[v] } }],
        results: [JSON.stringify({ refund_id: `re_${rng.alnum(14)}`, status: "succeeded", amount: o.price, currency: "USD", eta_business_days: 5 })],
      },
    ],
    reply: `Done — I've refunded $${o.price.toFixed(2)} for order ${o.id}. It usually shows on your statement within 5 business days. Sorry for the trouble!`,
  };
}

export type KbEntry = { question: string; query: string; article: string; answer: string };

export const KB: KbEntry[] = [
  {
    question: "Do you ship to Canada?",
    query: "international shipping Canada",
    article: "KB-118 International shipping: We ship to Canada, the UK and the EU. Duties are prepaid at checkout. Delivery 5–9 business days.",
    answer: "Yes! We ship to Canada. Duties are included at checkout, so there's nothing to pay on delivery, and it takes 5–9 business days.",
  },
  {
    question: "What's your return policy for opened electronics?",
    query: "return policy opened electronics",
    article: "KB-042 Returns: Electronics can be returned within 30 days, opened or not, if all accessories are included. A 10% restocking fee applies to opened items without a defect.",
    answer: "Opened electronics can be returned within 30 days as long as all accessories are included. If there's no defect, a 10% restocking fee applies.",
  },
  {
    question: "How do I change the email on my account?",
    query: "change account email",
    article: "KB-007 Account settings: Account → Profile → Email. A confirmation link is sent to the new address; the change applies after confirmation.",
    answer: "Go to Account → Profile → Email and enter the new address. We'll send a confirmation link there — the change takes effect once you click it.",
  },
  {
    question: "Can I use two discount codes on one order?",
    query: "combine discount codes",
    article: "KB-063 Promotions: One promo code per order. Gift cards can be combined with a promo code.",
    answer: "Only one promo code per order, sorry — but you can combine it with a gift card.",
  },
  {
    question: "Do you price match?",
    query: "price match policy",
    article: "KB-071 Price match: We match the advertised price of major US retailers for identical in-stock items, within 14 days of purchase.",
    answer: "We do: within 14 days of purchase we match major US retailers' advertised price for the identical item, if it's in stock there. Send me the link and your order number.",
  },
  {
    question: "Is there a warranty on the Acme Pro blender?",
    query: "Acme Pro blender warranty",
    article: "KB-204 Acme Pro blender: 5-year motor warranty, 2 years on parts. Register at acme.example/warranty.",
    answer: "The Acme Pro blender has a 5-year warranty on the motor and 2 years on parts. Register it at acme.example/warranty to make claims easier.",
  },
  {
    question: "How long do refunds take to show up on my card?",
    query: "refund processing time",
    article: "KB-051 Refunds: Refunds are issued within 1 business day and appear on the statement in 3–10 business days depending on the bank.",
    answer: "We issue refunds within a business day; your bank then takes 3–10 business days to show it on your statement.",
  },
  {
    question: "Can I pick up my order in store instead?",
    query: "in-store pickup",
    article: "KB-090 Pickup: Free in-store pickup in 14 cities. Choose 'Pick up' at checkout; orders are ready in 2 hours.",
    answer: "Yes — choose “Pick up” at checkout (available in 14 cities) and it'll be ready in about 2 hours, free of charge.",
  },
];

export function kbChat(k: KbEntry): SupportChat {
  return { opening: k.question, steps: [{ tools: [{ name: "search_kb", args: { query: k.query } }], results: [k.article] }], reply: k.answer };
}

/** Plays a chat: the customer's message(s) and the agent's calls. */
export function playChat(conv: ConversationBuilder, chat: SupportChat): void {
  const turn = (message: string, steps: SupportStep[], reply: string, thinkMs?: number) => {
    conv.user(message, thinkMs);
    for (const s of steps) {
      conv.step({ ...(s.say ? { text: s.say } : {}), tools: s.tools });
      conv.respond(s.results);
    }
    conv.step({ text: reply });
  };
  turn(chat.opening, chat.steps, chat.reply);
  if (chat.followup) turn(chat.followup.message, chat.followup.steps, chat.followup.reply, conv.rng.int(10_000, 60_000));
}
