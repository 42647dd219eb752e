import type { ModuleNames } from '../module-names.js';

export const pageViewTemplate = (
  n: ModuleNames,
): string => `{{!-- ${n.label}: /${n.kebab} (${n.pascal}Controller). Every value is escaped. --}}
<h1>${n.label}</h1>
<p class="muted ${n.kebab}-count">{{count}}</p>
{{> shop/form_errors intro="The item could not be added:"}}
{{#if items.length}}
<ul class="${n.kebab}-items">{{#each items}}<li>{{name}}</li>{{/each}}</ul>
{{else}}<p class="muted">Nothing here yet.</p>{{/if}}
<form class="stacked" method="post" action="/${n.kebab}" novalidate>
  {{csrf_field "${n.kebab}"}}
  <label>Name <input name="name" value="{{form.name}}" required maxlength="100"></label>
  <button type="submit">Add</button>
</form>
`;

export const headerLinkTemplate = (n: ModuleNames): string =>
  `{{!-- ${n.label}'s link in every page's navigation (the layout's "header-links" slot). --}}
<a href="/${n.kebab}" class="${n.kebab}-link">${n.label}</a>
`;

export const panelViewTemplate = (
  n: ModuleNames,
): string => `{{!-- The ${n.label} panel (${n.pascal}Collector.panel). Every value is escaped. --}}
{{> key-values rows=overview emptyText=""}}
<h2>Added by this request <span class="badge">{{added.length}}</span></h2>
{{#if added.length}}
<table class="data ${n.kebab}-added">
  <thead><tr><th class="num">Id</th><th>Name</th></tr></thead>
  <tbody>{{#each added}}<tr><td class="num">{{id}}</td><td>{{name}}</td></tr>{{/each}}</tbody>
</table>
{{else}}<p class="empty">This request added nothing.</p>{{/if}}
`;

export const toolbarViewTemplate = (n: ModuleNames): string =>
  `<a class="sk-value" href="{{panelUrl}}"><span class="sk-label">${n.kebab}</span> <span class="sk-number">{{count}}</span>{{#if added}} <span class="sk-count sk-success" title="items added by this request">+{{added}}</span>{{/if}}</a>
{{> toolbar-info}}
`;
