import { DEFAULT_STYLE, type TBlock, type TContentBlock, type TEmailDocument, type TEmailStyle } from './document';

/**
 * Sendwell's starter templates (issue 46 §6): a gallery every user sees, made with the builder
 * so each opens in Visual mode. Each is tested to score Excellent in the spam test's own
 * checks and to stay far under Gmail's 102 KB clip once composed (B17). Placeholder images
 * are image blocks without an address: they render nothing until the user adds a picture.
 */

export type TStarterTemplate = {
  /** Stable across releases: the picker's value is `starter:<key>`. */
  key: string;
  name: string;
  subject: string;
  description: string;
  document: TEmailDocument;
};

const heading = (id: string, text: string, level: 1 | 2 | 3 = 1, align: 'left' | 'center' = 'left'): TBlock => ({
  type: 'heading',
  id,
  text,
  level,
  align,
  color: null,
});
const text = (id: string, html: string): TContentBlock => ({ type: 'text', id, html });
const button = (id: string, label: string, href: string, background = '#1c64d1', align: 'left' | 'center' = 'left') =>
  ({ type: 'button', id, text: label, href, background, color: '#ffffff', radius: 6, align }) as const;
const image = (id: string, alt: string): TContentBlock => ({
  type: 'image',
  id,
  src: '',
  alt,
  href: '',
  width: null,
  align: 'center',
});
const divider = (id: string): TBlock => ({ type: 'divider', id, color: '#e4e7eb', thickness: 1 });
const spacer = (id: string, height = 16): TBlock => ({ type: 'spacer', id, height });
const footer = (id: string): TBlock => ({
  type: 'footer',
  id,
  text: 'You receive this email because you signed up on our website.',
  address: 'Your Company · 123 Main Street · Springfield, IL 62701 · USA',
  unsubscribeText: 'Unsubscribe',
});
const doc = (blocks: TBlock[], style: Partial<TEmailStyle> = {}): TEmailDocument => ({
  version: 1,
  kind: 'email',
  style: { ...DEFAULT_STYLE, ...style },
  blocks,
});

export const STARTER_TEMPLATES: TStarterTemplate[] = [
  {
    key: 'newsletter',
    name: 'Newsletter',
    subject: 'What is new this month',
    description: 'A headline story and two columns of news.',
    document: doc([
      heading('a1', 'The monthly update'),
      text(
        'a2',
        '<p>Hi {{first_name::there}},</p><p>Here is what happened at our company this month: a new feature, two stories from customers and the dates of our next events. Thank you for reading and for the replies you send us.</p>',
      ),
      image('a3', 'The story of the month'),
      heading('a4', 'Our new feature is here', 2),
      text(
        'a5',
        '<p>After months of work with people who use our product every day, the new reports are ready. They show in one page what used to take an afternoon of spreadsheets.</p>',
      ),
      button('a6', 'Read the full story', 'https://www.example.com/blog/new-reports'),
      divider('a7'),
      {
        type: 'section',
        id: 'a8',
        background: null,
        columns: [
          {
            id: 'a9',
            blocks: [
              { type: 'heading', id: 'b1', text: 'From our customers', level: 3, align: 'left', color: null },
              text(
                'b2',
                '<p>How a small bakery in Lyon doubled its weekday orders by writing to its regulars every Friday.</p><p><a href="https://www.example.com/stories/bakery">Read their story</a></p>',
              ),
            ],
          },
          {
            id: 'b3',
            blocks: [
              { type: 'heading', id: 'b4', text: 'Coming up', level: 3, align: 'left', color: null },
              text(
                'b5',
                '<p>Join our live session on the 14th, where we answer your questions about the new reports.</p><p><a href="https://www.example.com/events">See the dates</a></p>',
              ),
            ],
          },
        ],
      },
      divider('b6'),
      { type: 'social', id: 'b7', align: 'center', links: socialLinks() },
      footer('b8'),
    ]),
  },
  {
    key: 'announcement',
    name: 'Announcement',
    subject: 'Big news: we are launching something new',
    description: 'One message, said clearly, with one button.',
    document: doc([
      image('c1', 'The product we are announcing'),
      heading('c2', 'Something new is here', 1, 'center'),
      text(
        'c3',
        '<p style="text-align: center">Hi {{first_name::there}}, today we open our new service to everyone. It does the work you told us takes too long, in a few clicks, and it is included in your plan at no extra cost.</p><p style="text-align: center">We built it with the feedback of hundreds of customers, and we would love to hear what you think.</p>',
      ),
      button('c4', 'See what is new', 'https://www.example.com/new', '#1c64d1', 'center'),
      spacer('c5', 24),
      footer('c6'),
    ]),
  },
  {
    key: 'offer',
    name: 'Offer',
    subject: 'A thank-you offer for you',
    description: 'A discount with its code, its end date and its terms.',
    document: doc(
      [
        heading('d1', 'Twenty percent off, this week only', 1, 'center'),
        text(
          'd2',
          '<p style="text-align: center">Hi {{first_name::there}}, thank you for being with us. Until Sunday, use the code below at checkout for twenty percent off everything in our shop, delivery included.</p>',
        ),
        {
          type: 'section',
          id: 'd3',
          background: '#fff7e6',
          columns: [
            {
              id: 'd4',
              blocks: [{ type: 'heading', id: 'd5', text: 'THANKYOU20', level: 2, align: 'center', color: '#8a4b00' }],
            },
          ],
        },
        button('d6', 'Visit the shop', 'https://www.example.com/shop', '#b45309', 'center'),
        text(
          'd7',
          '<p style="text-align: center">The code works once per customer, until Sunday at midnight. It cannot be combined with other offers.</p>',
        ),
        footer('d8'),
      ],
      { background: '#faf5ef' },
    ),
  },
  {
    key: 'event',
    name: 'Event',
    subject: 'You are invited',
    description: 'When, where, what to expect, and a button to register.',
    document: doc([
      heading('e1', 'Join us for an evening of talks'),
      text(
        'e2',
        '<p>Hi {{first_name::there}}, we are holding our yearly meetup in town and would be glad to see you there. Three short talks, time to meet other customers, and food and drinks on us.</p>',
      ),
      {
        type: 'section',
        id: 'e3',
        background: '#f0f4f8',
        columns: [
          {
            id: 'e4',
            blocks: [
              { type: 'heading', id: 'e5', text: 'When', level: 3, align: 'left', color: null },
              text('e6', '<p>Thursday, June 12<br>6:30 pm to 9:00 pm</p>'),
            ],
          },
          {
            id: 'e7',
            blocks: [
              { type: 'heading', id: 'e8', text: 'Where', level: 3, align: 'left', color: null },
              text('e9', '<p>The Old Library<br>45 Market Street</p>'),
            ],
          },
        ],
      },
      text(
        'f1',
        '<p>Places are limited to eighty guests. Register now to keep yours; you can cancel at any time with one click from the confirmation email.</p>',
      ),
      button('f2', 'Register for the evening', 'https://www.example.com/events/meetup'),
      footer('f3'),
    ]),
  },
  {
    key: 'welcome',
    name: 'Welcome',
    subject: 'Welcome aboard, {{first_name::friend}}',
    description: 'A warm first email with three first steps.',
    document: doc([
      heading('g1', 'Welcome, {{first_name::friend}}!'),
      text(
        'g2',
        '<p>Thank you for signing up. We are glad you are here. Here are three things most people do in their first week:</p><ol><li><strong>Complete your profile</strong>, so we can send you what matters to you.</li><li><strong>Read our getting started guide</strong>, ten minutes that save hours.</li><li><strong>Say hello</strong>: reply to this email with any question, a person will answer.</li></ol>',
      ),
      button('g3', 'Open the guide', 'https://www.example.com/guide'),
      text('g4', '<p>See you soon,<br>The team</p>'),
      footer('g5'),
    ]),
  },
  {
    key: 'letter',
    name: 'Plain letter',
    subject: 'A quick note',
    description: 'Just words, like a letter from a person.',
    document: doc(
      [
        text(
          'h1',
          '<p>Hi {{first_name::there}},</p><p>I wanted to write to you myself, not as a company, to say thank you. This year you helped us grow from a small idea to something people use every day.</p><p>If there is anything we could do better, just hit reply. I read every answer.</p><p>Warm regards,<br>Alex</p>',
        ),
        footer('h2'),
      ],
      { background: '#ffffff', font: 'serif' },
    ),
  },
];

function socialLinks() {
  return [
    { network: 'website' as const, url: 'https://www.example.com' },
    { network: 'facebook' as const, url: 'https://www.facebook.com/' },
    { network: 'instagram' as const, url: 'https://www.instagram.com/' },
  ];
}

export const starterTemplate = (key: string) => STARTER_TEMPLATES.find((template) => template.key === key) ?? null;
