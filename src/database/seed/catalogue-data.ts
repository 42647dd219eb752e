/**
 * The demo catalogue's raw material: ten departments, each with six product lines in four styles (240 products).
 * buildCatalogue() turns it into rows, deterministically.
 */
export interface ProductLine {
  /** Appended to the style: "Walnut" + "Cutting Board". */
  name: string;
  /** Price of the line in cents before the style's factor. */
  price: number;
  blurb: string;
}

export interface ProductStyle {
  label: string;
  blurb: string;
  /** Multiplies the line's price. */
  factor: number;
}

export interface DepartmentData {
  slug: string;
  name: string;
  description: string;
  lines: ProductLine[];
  styles: ProductStyle[];
  /** One of these closes each product's description. */
  notes: string[];
}

export const DEPARTMENTS: DepartmentData[] = [
  {
    slug: 'coffee-tea',
    name: 'Coffee & Tea',
    description: 'Freshly roasted beans from small farms, and everything for the morning cup.',
    lines: [
      {
        name: 'Espresso Roast, 1 kg',
        price: 2490,
        blurb: 'A dark, syrupy roast made for espresso machines and moka pots.',
      },
      {
        name: 'Filter Roast, 250 g',
        price: 1190,
        blurb: 'A light roast that keeps the fruit of the origin, for pour-over and drip.',
      },
      { name: 'Cold Brew Blend, 500 g', price: 1690, blurb: 'Coarsely ground for a smooth overnight cold brew.' },
      {
        name: 'Decaf Beans, 250 g',
        price: 1290,
        blurb: 'Decaffeinated with the Swiss Water process, without solvents.',
      },
      {
        name: 'Drip Bags, 10 pieces',
        price: 890,
        blurb: 'Single-cup filter bags that hook over any mug: hot water is all you need.',
      },
      { name: 'Green Tea, 100 g', price: 990, blurb: 'Loose leaves for three or four infusions at 80 °C.' },
    ],
    styles: [
      { label: 'Ethiopian', blurb: 'The Ethiopian lot tastes of jasmine, bergamot and ripe peach.', factor: 1.15 },
      { label: 'Colombian', blurb: 'The Colombian lot is round and sweet, with caramel and red apple.', factor: 1 },
      { label: 'Guatemalan', blurb: 'The Guatemalan lot brings cocoa, hazelnut and a hint of spice.', factor: 1.05 },
      {
        label: 'Sumatran',
        blurb: 'The Sumatran lot is earthy and full-bodied, with dark chocolate in the finish.',
        factor: 0.95,
      },
    ],
    notes: [
      'Roasted in Hamburg every Tuesday and shipped within two days.',
      'Packed in a resealable bag with a one-way valve.',
      'Certified organic and bought directly from the cooperative.',
      'Best within eight weeks of the roast date printed on the bag.',
    ],
  },
  {
    slug: 'kitchen',
    name: 'Kitchen',
    description: 'Wooden boards, bowls and tools that last for decades and look good on the table.',
    lines: [
      { name: 'Cutting Board', price: 3900, blurb: 'A thick end-grain board that is gentle on knife edges.' },
      {
        name: 'Serving Tray',
        price: 4500,
        blurb: 'A tray with raised edges and two carved handles, for breakfast in bed or drinks on the terrace.',
      },
      { name: 'Salad Bowl', price: 5900, blurb: 'A wide bowl turned from a single piece of wood, 28 cm across.' },
      {
        name: 'Spoon Set, 3 pieces',
        price: 2400,
        blurb: 'A stirring spoon, a spatula and a slotted spoon, carved by hand.',
      },
      {
        name: 'Pepper Mill',
        price: 3400,
        blurb: 'A ceramic grinder with adjustable coarseness, from powder to cracked.',
      },
      {
        name: 'Knife Block',
        price: 6900,
        blurb: 'A magnetic block that holds up to six knives without scratching them.',
      },
    ],
    styles: [
      { label: 'Walnut', blurb: 'Made of American black walnut, dark and richly grained.', factor: 1.25 },
      { label: 'Oak', blurb: 'Made of European oak from sustainably managed forests.', factor: 1.1 },
      { label: 'Bamboo', blurb: 'Made of fast-growing bamboo, light and hard-wearing.', factor: 0.7 },
      { label: 'Olive Wood', blurb: 'Made of Tuscan olive wood, no two pieces grained alike.', factor: 1.35 },
    ],
    notes: [
      'Oil it now and then with food-safe mineral oil; wash by hand.',
      'Finished with linseed oil and beeswax.',
      'Made in a family workshop in the Black Forest.',
      'Comes with a care card and a small bottle of board oil.',
    ],
  },
  {
    slug: 'home-decor',
    name: 'Home Decor',
    description: 'Soft furnishings and textiles that make a room feel lived in.',
    lines: [
      {
        name: 'Cushion Cover, 45 × 45 cm',
        price: 2900,
        blurb: 'A cushion cover with a hidden zip; the inner cushion is sold separately.',
      },
      {
        name: 'Throw Blanket',
        price: 7900,
        blurb: 'A generous 130 × 170 cm throw for the sofa or the foot of the bed.',
      },
      { name: 'Table Runner', price: 3500, blurb: 'A 40 × 180 cm runner with stitched hems.' },
      { name: 'Curtain Panel', price: 6500, blurb: 'A 140 × 250 cm panel with a rod pocket and hidden loops.' },
      { name: 'Floor Cushion', price: 8900, blurb: 'A firm 60 cm floor cushion, filled with recycled fibres.' },
      { name: 'Napkins, set of 4', price: 2400, blurb: 'Four 45 cm napkins that soften with every wash.' },
    ],
    styles: [
      { label: 'Linen', blurb: 'Woven from stonewashed European flax.', factor: 1.1 },
      { label: 'Velvet', blurb: 'Cotton velvet with a soft sheen and a deep colour.', factor: 1.2 },
      { label: 'Wool', blurb: 'Woven from undyed wool of Shetland sheep.', factor: 1.3 },
      { label: 'Organic Cotton', blurb: 'GOTS-certified organic cotton in a herringbone weave.', factor: 0.9 },
    ],
    notes: [
      'Machine washable at 30 °C.',
      'Available while the current dye lot lasts.',
      'Woven in Portugal by a mill founded in 1926.',
      'Ships folded in a reusable cotton bag.',
    ],
  },
  {
    slug: 'garden',
    name: 'Garden & Outdoor',
    description: 'Planters, tools and furniture for balconies, terraces and gardens.',
    lines: [
      {
        name: 'Planter, 30 cm',
        price: 3900,
        blurb: 'A frost-proof planter with a drainage hole and a removable plug.',
      },
      { name: 'Watering Can, 5 L', price: 4900, blurb: 'A long-spouted can with a brass rose for seedlings.' },
      { name: 'Bird Feeder', price: 2900, blurb: 'A hanging feeder with a roof that keeps the seed dry.' },
      { name: 'Folding Chair', price: 8900, blurb: 'A slatted chair that folds flat for the winter.' },
      { name: 'Garden Kneeler', price: 3400, blurb: 'A padded kneeler that turns into a low bench.' },
      { name: 'Plant Stand', price: 5500, blurb: 'A three-tier stand for pots up to 20 cm.' },
    ],
    styles: [
      { label: 'Sage Green', blurb: 'Powder-coated in a muted sage green.', factor: 1 },
      { label: 'Charcoal', blurb: 'Powder-coated in a deep charcoal grey.', factor: 1 },
      { label: 'Terracotta', blurb: 'In a warm terracotta tone that weathers gracefully.', factor: 1.05 },
      { label: 'Sand', blurb: 'In a light sand colour that stays cool in the sun.', factor: 0.95 },
    ],
    notes: [
      'Weatherproof: it can stay outside all year.',
      'Made from 80 % recycled material.',
      'Covered by a five-year guarantee.',
      'Delivered flat-packed; assembly takes about ten minutes.',
    ],
  },
  {
    slug: 'stationery',
    name: 'Books & Stationery',
    description: 'Notebooks, pens and desk things for people who still write by hand.',
    lines: [
      {
        name: 'Hardcover Notebook A5',
        price: 1890,
        blurb: 'A lay-flat notebook with 192 numbered pages of 100 g paper.',
      },
      { name: 'Pocket Notebook A6', price: 990, blurb: 'A slim notebook with rounded corners and an elastic closure.' },
      {
        name: 'Weekly Planner',
        price: 2490,
        blurb: 'An undated planner: a week on two pages, with monthly overviews.',
      },
      {
        name: 'Fountain Pen',
        price: 4900,
        blurb: 'A steel-nib fountain pen that takes standard cartridges and a converter.',
      },
      { name: 'Desk Organiser', price: 3900, blurb: 'A desk tray with compartments for pens, cards and a phone.' },
      { name: 'Pencil Case', price: 2200, blurb: 'A zipped case that holds twenty pens and a ruler.' },
    ],
    styles: [
      { label: 'Forest Green', blurb: 'Bound in a deep forest green.', factor: 1 },
      { label: 'Navy', blurb: 'In a classic navy blue.', factor: 1 },
      { label: 'Burgundy', blurb: 'In a rich burgundy red.', factor: 1.05 },
      { label: 'Ochre', blurb: 'In a warm ochre yellow.', factor: 0.95 },
    ],
    notes: [
      'The paper is FSC-certified and fountain-pen friendly.',
      'Designed in Copenhagen, made in Italy.',
      'Gift-wrapped on request at no extra cost.',
      'Refills and spare parts are available separately.',
    ],
  },
  {
    slug: 'bags-travel',
    name: 'Bags & Travel',
    description: 'Bags and organisers for commuting, weekends away and long trips.',
    lines: [
      { name: 'Canvas Tote Bag', price: 3900, blurb: 'A heavy canvas tote with an inside pocket and a snap closure.' },
      {
        name: 'Roll-Top Backpack, 20 L',
        price: 11900,
        blurb: 'A waterproof roll-top backpack with a padded 15-inch laptop sleeve.',
      },
      {
        name: 'Weekender Duffel',
        price: 14900,
        blurb: 'A 40 L duffel that fits as cabin luggage, with a shoe compartment.',
      },
      { name: 'Card Holder', price: 2900, blurb: 'A slim holder for six cards and folded notes.' },
      { name: 'Packing Cubes, set of 3', price: 3400, blurb: 'Three zipped cubes in small, medium and large.' },
      { name: 'Toiletry Bag', price: 3900, blurb: 'A hanging toiletry bag with a mirror and a wipe-clean lining.' },
    ],
    styles: [
      { label: 'Black', blurb: 'In black, with matt black hardware.', factor: 1 },
      { label: 'Olive', blurb: 'In olive green, with brass hardware.', factor: 1 },
      { label: 'Tan', blurb: 'In a tan shade that ages into a rich patina.', factor: 1.1 },
      { label: 'Navy', blurb: 'In dark navy, with gunmetal hardware.', factor: 1 },
    ],
    notes: [
      'Made from recycled polyester and vegetable-tanned leather trims.',
      'Covered by a lifetime repair promise.',
      'Every seam is double-stitched.',
      'Designed and tested by our team on the road.',
    ],
  },
  {
    slug: 'clothing',
    name: 'Clothing',
    description: 'Everyday clothes in natural fibres, cut to last more than one season.',
    lines: [
      { name: 'Organic Cotton T-Shirt', price: 2900, blurb: 'A relaxed-fit T-shirt in 180 g organic cotton jersey.' },
      { name: 'Merino Crew Sweater', price: 8900, blurb: 'A fine-knit crew-neck sweater in extra-fine merino wool.' },
      { name: 'Hooded Sweatshirt', price: 6900, blurb: 'A brushed-back hoodie with a kangaroo pocket.' },
      { name: 'Cotton Beanie', price: 2400, blurb: 'A ribbed beanie with a turn-up cuff.' },
      { name: 'Wool Socks, 2 pairs', price: 1900, blurb: 'Cushioned socks with reinforced heels and toes.' },
      { name: 'Chore Jacket', price: 12900, blurb: 'A workwear jacket in heavy twill with three patch pockets.' },
    ],
    styles: [
      { label: 'Heather Grey', blurb: 'In a heather grey that goes with everything.', factor: 1 },
      { label: 'Navy', blurb: 'In a deep navy blue.', factor: 1 },
      { label: 'Off-White', blurb: 'In undyed off-white.', factor: 0.95 },
      { label: 'Forest Green', blurb: 'In a dark forest green.', factor: 1.05 },
    ],
    notes: [
      'Sizes XS to XXL; see the size chart for measurements.',
      'Made in a Fair Wear certified factory in Portugal.',
      'Wash cold and dry flat to keep the shape.',
      'Free returns within 30 days.',
    ],
  },
  {
    slug: 'sports',
    name: 'Sports & Fitness',
    description: 'Gear for training at home, in the gym and outdoors.',
    lines: [
      {
        name: 'Yoga Mat, 4 mm',
        price: 4900,
        blurb: 'A grippy natural-rubber mat, 183 × 61 cm, with a carrying strap.',
      },
      {
        name: 'Water Bottle, 750 ml',
        price: 2900,
        blurb: 'A double-walled steel bottle that keeps drinks cold for 24 hours.',
      },
      { name: 'Resistance Band Set', price: 2400, blurb: 'Five latex-free bands from extra-light to extra-heavy.' },
      { name: 'Foam Roller', price: 3400, blurb: 'A 33 cm roller with a ridged surface for deep-tissue massage.' },
      { name: 'Gym Towel', price: 1900, blurb: 'A quick-drying microfibre towel with a zipped pocket.' },
      { name: 'Jump Rope', price: 1490, blurb: 'A speed rope with ball-bearing handles and an adjustable cable.' },
    ],
    styles: [
      { label: 'Graphite', blurb: 'In graphite grey.', factor: 1 },
      { label: 'Coral', blurb: 'In a bright coral.', factor: 1 },
      { label: 'Teal', blurb: 'In deep teal.', factor: 1 },
      { label: 'Sand', blurb: 'In a soft sand colour.', factor: 0.95 },
    ],
    notes: [
      'Free of PVC and phthalates.',
      'Tested by our in-house physiotherapist.',
      'Comes with a printed guide of twelve exercises.',
      'Covered by a two-year guarantee.',
    ],
  },
  {
    slug: 'toys-games',
    name: 'Toys & Games',
    description: 'Games for the whole family, made to be played for years.',
    lines: [
      { name: 'Chess Set', price: 5900, blurb: 'A folding board with weighted, hand-turned pieces.' },
      {
        name: 'Backgammon',
        price: 4900,
        blurb: 'A backgammon case with stitched points, dice cups and a doubling cube.',
      },
      { name: 'Dominoes', price: 2900, blurb: 'A double-six set of 28 tiles in a sliding-lid box.' },
      { name: 'Playing Cards, 2 decks', price: 1490, blurb: 'Two linen-finish decks that shuffle smoothly.' },
      {
        name: 'Jigsaw Puzzle, 1000 pieces',
        price: 2490,
        blurb: 'A 1000-piece puzzle with a poster of the finished picture.',
      },
      {
        name: 'Wooden Building Blocks',
        price: 3900,
        blurb: 'Sixty blocks in eight shapes, sanded smooth, for ages 2 and up.',
      },
    ],
    styles: [
      { label: 'Classic', blurb: 'The classic edition, in natural wood tones.', factor: 1 },
      { label: 'Travel', blurb: 'The travel edition: compact, with a zipped pouch.', factor: 0.7 },
      { label: 'Deluxe', blurb: 'The deluxe edition, in walnut and maple with brass details.', factor: 1.8 },
      { label: 'Junior', blurb: 'The junior edition, with larger pieces and simple rules.', factor: 0.8 },
    ],
    notes: [
      'Finished with water-based, child-safe paints.',
      'Made in a workshop in the Erzgebirge.',
      'Rules in English, German and French.',
      'Wrapped in recycled paper, ready to give.',
    ],
  },
  {
    slug: 'bath-body',
    name: 'Bath & Body',
    description: 'Gentle soaps, creams and candles made with plant oils.',
    lines: [
      { name: 'Bar Soap, 100 g', price: 790, blurb: 'A cold-process soap with olive and coconut oil.' },
      { name: 'Hand Cream, 75 ml', price: 1490, blurb: 'A rich hand cream with shea butter that absorbs quickly.' },
      { name: 'Body Wash, 250 ml', price: 1290, blurb: 'A mild body wash with glycerin, free of sulphates.' },
      { name: 'Bath Salts, 500 g', price: 1690, blurb: 'Dead Sea and Epsom salts with a few drops of essential oil.' },
      {
        name: 'Scented Candle, 200 g',
        price: 2490,
        blurb: 'A rapeseed-wax candle in a reusable glass, about 45 hours of burning.',
      },
      { name: 'Shampoo Bar', price: 1190, blurb: 'A solid shampoo that lasts as long as two bottles.' },
    ],
    styles: [
      { label: 'Lavender', blurb: 'Scented with lavender from Provence.', factor: 1 },
      { label: 'Cedar & Sage', blurb: 'Scented with cedarwood and clary sage.', factor: 1.05 },
      { label: 'Citrus', blurb: 'Scented with bergamot, lemon and sweet orange.', factor: 1 },
      { label: 'Unscented', blurb: 'Without fragrance, for sensitive skin.', factor: 0.95 },
    ],
    notes: [
      'Vegan and never tested on animals.',
      'Made in small batches in Brighton.',
      'Packed without plastic.',
      'Dermatologically tested.',
    ],
  },
];
