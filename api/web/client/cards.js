// Cards drawn by the page (SVG suits, CSS faces). The deck design is a class
// on a container (deck-classic, deck-four-color, ...): style.css draws each.

import { cardName } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";
export const SUIT_ORDER = "CDHS";
export const RANK_ORDER = "23456789TJQKA";

// Each suit in a 100x100 box.
const SUIT_SHAPES = {
  H: [["path", { d: "M50 88C22 66 6 50 6 31 6 17 17 7 30 7c9 0 16 5 20 13 4-8 11-13 20-13 13 0 24 10 24 24 0 19-16 35-44 57z" }]],
  D: [["path", { d: "M50 4 86 50 50 96 14 50z" }]],
  S: [["path", { d: "M50 5C38 24 9 38 9 60c0 14 11 23 23 23 8 0 13-3 16-8-1 9-5 15-12 20h28c-7-5-11-11-12-20 3 5 8 8 16 8 12 0 23-9 23-23C91 38 62 24 50 5z" }]],
  C: [
    ["circle", { cx: 50, cy: 28, r: 19 }],
    ["circle", { cx: 27, cy: 58, r: 19 }],
    ["circle", { cx: 73, cy: 58, r: 19 }],
    ["path", { d: "M45 50h10c0 20 3 34 13 45H32c10-11 13-25 13-45z" }],
  ],
};

/** An SVG of one suit (decorative: the card's name says it in words). */
export function suitIcon(suit, className = "suit") {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 100 100");
  svg.setAttribute("class", className);
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  for (const [tag, attrs] of SUIT_SHAPES[suit]) {
    const shape = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attrs)) shape.setAttribute(name, String(value));
    svg.appendChild(shape);
  }
  return svg;
}

const rankText = (card) => (card[0] === "T" ? "10" : card[0]);

/**
 * A card face. `as` is "button" for a card in your hand (then it is focusable
 * and clickable) or "div" for a card on the table.
 */
export function cardElement(card, { as = "div", label } = {}) {
  const element = document.createElement(as);
  element.className = `card suit-${card[1]}`;
  element.dataset.card = card;
  const name = label || cardName(card);
  if (as === "button") {
    element.type = "button";
    element.setAttribute("aria-label", name);
  } else {
    element.setAttribute("role", "img");
    element.setAttribute("aria-label", name);
  }
  const corner = document.createElement("span");
  corner.className = "corner";
  const rank = document.createElement("span");
  rank.className = "rank";
  rank.textContent = rankText(card);
  corner.append(rank, suitIcon(card[1], "suit small"));
  const bottom = corner.cloneNode(true);
  bottom.className = "corner bottom";
  element.append(corner, suitIcon(card[1], "suit pip"), bottom);
  return element;
}

/** The order C D H S, then 2..A (the server's order too). */
export function sortCards(cards) {
  const key = (card) => SUIT_ORDER.indexOf(card[1]) * 13 + RANK_ORDER.indexOf(card[0]);
  return [...cards].sort((a, b) => key(a) - key(b));
}
