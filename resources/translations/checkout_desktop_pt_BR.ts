<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="pt_BR">
<context>
    <name>AmountEdit</name>
    <message>
        <location filename="../../checkout_desktop/ui/amount_edit.py" line="97"/>
        <source>a charge amount cannot be negative</source>
        <translation>o valor de uma cobrança não pode ser negativo</translation>
    </message>
</context>
<context>
    <name>ChargeForm</name>
    <message>
        <location filename="../../checkout_desktop/ui/charge_form.py" line="80"/>
        <source>Amount</source>
        <translation>Valor</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_form.py" line="91"/>
        <source>Installments</source>
        <translation>Parcelas</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_form.py" line="98"/>
        <source>On the card statement (optional)</source>
        <translation>Na fatura do cartão (opcional)</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_form.py" line="100"/>
        <source>&amp;Late capture (authorize now, capture later)</source>
        <translation>&amp;Captura posterior (autorizar agora, capturar depois)</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_form.py" line="103"/>
        <source>Sale</source>
        <translation>Venda</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_form.py" line="105"/>
        <source>&amp;Amount</source>
        <translation>&amp;Valor</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_form.py" line="109"/>
        <source>&amp;Installments</source>
        <translation>&amp;Parcelas</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_form.py" line="112"/>
        <source>&amp;Descriptor</source>
        <translation>&amp;Descritor</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_form.py" line="122"/>
        <source>CPF or CNPJ</source>
        <translation>CPF ou CNPJ</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_form.py" line="123"/>
        <source>Customer</source>
        <translation>Cliente</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_form.py" line="125"/>
        <source>&amp;Name</source>
        <translation>&amp;Nome</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_form.py" line="126"/>
        <source>&amp;E-mail</source>
        <translation>&amp;E-mail</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_form.py" line="127"/>
        <source>CPF/C&amp;NPJ</source>
        <translation>CPF/C&amp;NPJ</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_form.py" line="129"/>
        <source>Billing address</source>
        <translation>Endereço de cobrança</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_form.py" line="154"/>
        <source>CEP</source>
        <translation>CEP</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_form.py" line="155"/>
        <source>Street</source>
        <translation>Rua</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_form.py" line="158"/>
        <source>Complement</source>
        <translation>Complemento</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_form.py" line="160"/>
        <source>Number</source>
        <translation>Número</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_form.py" line="161"/>
        <source>Neighborhood</source>
        <translation>Bairro</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_form.py" line="164"/>
        <source>UF</source>
        <translation>UF</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_form.py" line="166"/>
        <source>City</source>
        <translation>Cidade</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_form.py" line="213"/>
        <source>single payment</source>
        <translation>à vista</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_form.py" line="217"/>
        <source>{n} × {share} (interest-free)</source>
        <translation>{n} × {share} (sem juros)</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_form.py" line="258"/>
        <source>Type the amount.</source>
        <translation>Digite o valor.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_form.py" line="262"/>
        <source>The descriptor takes only letters without accents, digits and spaces.</source>
        <translation>O descritor aceita só letras sem acento, dígitos e espaços.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_form.py" line="285"/>
        <source>Type the customer&apos;s name.</source>
        <translation>Digite o nome do cliente.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_form.py" line="288"/>
        <source>The customer&apos;s name takes only letters, digits, spaces and &apos;&amp;&apos;.</source>
        <translation>O nome do cliente aceita só letras, dígitos, espaços e &apos;&amp;&apos;.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_form.py" line="291"/>
        <source>Type a valid e-mail address (name@example.com).</source>
        <translation>Digite um e-mail válido (nome@exemplo.com).</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_form.py" line="299"/>
        <source>Type the customer&apos;s CPF or CNPJ.</source>
        <translation>Digite o CPF ou CNPJ do cliente.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_form.py" line="302"/>
        <source>The CPF/CNPJ check digits do not match; check the number.</source>
        <translation>Os dígitos verificadores do CPF/CNPJ não conferem; confira o número.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_form.py" line="306"/>
        <source>A CPF has 11 digits and a CNPJ 14; this one has {n}.</source>
        <translation>Um CPF tem 11 dígitos e um CNPJ, 14; este tem {n}.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_form.py" line="326"/>
        <source>Type the CEP as 8 digits, e.g. 01310-100.</source>
        <translation>Digite o CEP com 8 dígitos, por exemplo 01310-100.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_form.py" line="328"/>
        <source>street</source>
        <translation>rua</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_form.py" line="329"/>
        <source>number</source>
        <translation>número</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_form.py" line="330"/>
        <source>neighborhood</source>
        <translation>bairro</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_form.py" line="331"/>
        <source>city</source>
        <translation>cidade</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_form.py" line="336"/>
        <source>The billing address needs: {fields}.</source>
        <translation>Falta no endereço de cobrança: {fields}.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_form.py" line="340"/>
        <source>Choose the state (UF).</source>
        <translation>Escolha o estado (UF).</translation>
    </message>
</context>
<context>
    <name>ChargeHistoryModel</name>
    <message>
        <location filename="../../checkout_desktop/ui/history_model.py" line="77"/>
        <source>Created</source>
        <translation>Criada</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_model.py" line="78"/>
        <source>Charge</source>
        <translation>Cobrança</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_model.py" line="79"/>
        <source>Amount</source>
        <translation>Valor</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_model.py" line="80"/>
        <source>Status</source>
        <translation>Situação</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_model.py" line="81"/>
        <source>Refunded</source>
        <translation>Estornado</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_model.py" line="82"/>
        <source>Cards</source>
        <translation>Cartões</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_model.py" line="83"/>
        <source>3DS</source>
        <translation>3DS</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_model.py" line="187"/>
        <source>Service id: {id}</source>
        <translation>Id no serviço: {id}</translation>
    </message>
</context>
<context>
    <name>ChargeScreen</name>
    <message>
        <location filename="../../checkout_desktop/ui/charge_screen.py" line="259"/>
        <source>The part of the sale the next card pays (split a sale across cards)</source>
        <translation>A parte da venda que o próximo cartão paga (para dividir a venda entre cartões)</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_screen.py" line="261"/>
        <source>&amp;Remove card</source>
        <translation>&amp;Remover cartão</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_screen.py" line="263"/>
        <source>Loading the card form…</source>
        <translation>Carregando o formulário do cartão…</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_screen.py" line="266"/>
        <source>Cards</source>
        <translation>Cartões</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_screen.py" line="271"/>
        <source>Amount on the next card</source>
        <translation>Valor no próximo cartão</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_screen.py" line="357"/>
        <source>Charging…</source>
        <translation>Cobrando…</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_screen.py" line="360"/>
        <source>C&amp;harge {amount}</source>
        <translation>Co&amp;brar {amount}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_screen.py" line="367"/>
        <source>The cards add up to more than the sale.</source>
        <translation>Os cartões somam mais do que a venda.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_screen.py" line="393"/>
        <source>The next card can pay at most {amount}.</source>
        <translation>O próximo cartão pode pagar no máximo {amount}.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_screen.py" line="399"/>
        <source>Checking the card…</source>
        <translation>Verificando o cartão…</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_screen.py" line="420"/>
        <source>The sale is already covered by the cards above.</source>
        <translation>A venda já está coberta pelos cartões acima.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_screen.py" line="427"/>
        <source>{brand} •••• {last4} added.</source>
        <translation>{brand} •••• {last4} adicionado.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_screen.py" line="441"/>
        <source>The card was not accepted: {why}</source>
        <translation>O cartão não foi aceito: {why}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_screen.py" line="447"/>
        <source>Type the card, then Charge (Ctrl+Enter). To split the sale, set the amount on this card and add it with the card form&apos;s button first.</source>
        <translation>Digite o cartão e cobre (Ctrl+Enter). Para dividir a venda, defina o valor neste cartão e adicione-o antes com o botão do formulário do cartão.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_screen.py" line="454"/>
        <source>The card form is unavailable: {why}</source>
        <translation>O formulário do cartão está indisponível: {why}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_screen.py" line="537"/>
        <source>Not charged: {why}</source>
        <translation>Não cobrado: {why}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_screen.py" line="540"/>
        <source>Not charged: an internal error ({kind})</source>
        <translation>Não cobrado: erro interno ({kind})</translation>
    </message>
</context>
<context>
    <name>ConnectionTest</name>
    <message>
        <location filename="../../checkout_desktop/app.py" line="686"/>
        <source>Listener</source>
        <translation>Receptor</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/app.py" line="687"/>
        <source>Access token</source>
        <translation>Token de acesso</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/app.py" line="696"/>
        <source>port {port} is taken by another program; choose another</source>
        <translation>a porta {port} está ocupada por outro programa; escolha outra</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/app.py" line="708"/>
        <source>Sandbox</source>
        <translation>Sandbox</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/app.py" line="723"/>
        <source>Setup</source>
        <translation>Configuração</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/app.py" line="733"/>
        <source>fetched; valid for {seconds} s</source>
        <translation>obtido; válido por {seconds} s</translation>
    </message>
</context>
<context>
    <name>CredentialsPage</name>
    <message>
        <location filename="../../checkout_desktop/ui/wizard.py" line="149"/>
        <source>Credentials</source>
        <translation>Credenciais</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/wizard.py" line="152"/>
        <source>From the merchant panel (Integrations → Checkout). The secret and the SDK token go to this computer&apos;s keychain, never to a file.</source>
        <translation>Do painel do lojista (Integrações → Checkout). O segredo e o token do SDK vão para o chaveiro deste computador, nunca para um arquivo.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/wizard.py" line="172"/>
        <source>Client id</source>
        <translation>Client id</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/wizard.py" line="173"/>
        <source>Client secret</source>
        <translation>Client secret</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/wizard.py" line="174"/>
        <source>Merchant CNPJ</source>
        <translation>CNPJ do lojista</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/wizard.py" line="175"/>
        <source>Card SDK token</source>
        <translation>Token do SDK de cartão</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/wizard.py" line="196"/>
        <source>The client id takes letters, digits, &apos;_&apos; and &apos;-&apos; only.</source>
        <translation>O client id aceita só letras, dígitos, &apos;_&apos; e &apos;-&apos;.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/wizard.py" line="199"/>
        <source>The client secret takes letters, digits and &apos;_&apos; only.</source>
        <translation>O client secret aceita só letras, dígitos e &apos;_&apos;.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/wizard.py" line="204"/>
        <source>The merchant CNPJ is not valid; check its 14 digits.</source>
        <translation>O CNPJ do lojista não é válido; confira os 14 dígitos.</translation>
    </message>
</context>
<context>
    <name>EnvironmentPage</name>
    <message>
        <location filename="../../checkout_desktop/ui/wizard.py" line="69"/>
        <source>Environment</source>
        <translation>Ambiente</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/wizard.py" line="72"/>
        <source>Where charges go. The built-in sandbox needs no account: it plays the service on this computer, with test cards.</source>
        <translation>Para onde vão as cobranças. O sandbox embutido não precisa de conta: ele faz o papel do serviço neste computador, com cartões de teste.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/wizard.py" line="90"/>
        <source>System language</source>
        <translation>Idioma do sistema</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/wizard.py" line="96"/>
        <source>Language</source>
        <translation>Idioma</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/wizard.py" line="131"/>
        <source>Runs on this computer; test cards only; nothing is charged.</source>
        <translation>Roda neste computador; só cartões de teste; nada é cobrado.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/wizard.py" line="135"/>
        <source>The service&apos;s own test environment; needs sandbox credentials.</source>
        <translation>O ambiente de testes do próprio serviço; precisa de credenciais de sandbox.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/wizard.py" line="139"/>
        <source>Real charges on real cards.</source>
        <translation>Cobranças reais em cartões reais.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/wizard.py" line="140"/>
        <source>A custom environment.</source>
        <translation>Um ambiente personalizado.</translation>
    </message>
</context>
<context>
    <name>EventDetail</name>
    <message>
        <location filename="../../checkout_desktop/ui/events_panel.py" line="59"/>
        <location filename="../../checkout_desktop/ui/events_panel.py" line="74"/>
        <source>Select an event to see its headers and body.</source>
        <translation>Selecione um evento para ver os cabeçalhos e o corpo.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/events_panel.py" line="80"/>
        <source>Event #{id} received {at}</source>
        <translation>Evento nº {id} recebido em {at}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/events_panel.py" line="86"/>
        <source>Why: {reason}</source>
        <translation>Motivo: {reason}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/events_panel.py" line="88"/>
        <source>First delivery: event #{id}</source>
        <translation>Primeira entrega: evento nº {id}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/events_panel.py" line="91"/>
        <source>Charge update: {outcome}</source>
        <translation>Atualização da cobrança: {outcome}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/events_panel.py" line="103"/>
        <source>Headers</source>
        <translation>Cabeçalhos</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/events_panel.py" line="104"/>
        <source>Body</source>
        <translation>Corpo</translation>
    </message>
</context>
<context>
    <name>EventListModel</name>
    <message>
        <location filename="../../checkout_desktop/ui/event_model.py" line="118"/>
        <source>Received</source>
        <translation>Recebido</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/event_model.py" line="119"/>
        <source>Type</source>
        <translation>Tipo</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/event_model.py" line="120"/>
        <source>Status</source>
        <translation>Situação</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/event_model.py" line="121"/>
        <source>Charge</source>
        <translation>Cobrança</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/event_model.py" line="122"/>
        <source>Delivery</source>
        <translation>Entrega</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/event_model.py" line="123"/>
        <source>Reason</source>
        <translation>Motivo</translation>
    </message>
</context>
<context>
    <name>EventsPanel</name>
    <message>
        <location filename="../../checkout_desktop/ui/events_panel.py" line="124"/>
        <source>Any type</source>
        <translation>Qualquer tipo</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/events_panel.py" line="126"/>
        <source>Transaction update</source>
        <translation>Atualização de transação</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/events_panel.py" line="130"/>
        <source>3DS challenge</source>
        <translation>Desafio 3DS</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/events_panel.py" line="133"/>
        <source>Self-test</source>
        <translation>Autoteste</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/events_panel.py" line="136"/>
        <source>Any status</source>
        <translation>Qualquer situação</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/events_panel.py" line="141"/>
        <source>Any delivery</source>
        <translation>Qualquer entrega</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/events_panel.py" line="146"/>
        <source>Charge id</source>
        <translation>Id da cobrança</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/events_panel.py" line="150"/>
        <source>Search ids, status, reason, body…</source>
        <translation>Buscar ids, situação, motivo, corpo…</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/events_panel.py" line="152"/>
        <source>Refresh</source>
        <translation>Atualizar</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/events_panel.py" line="154"/>
        <source>Reload from the newest event (shows what another process stored)</source>
        <translation>Recarregar a partir do evento mais novo (mostra o que outro processo gravou)</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/events_panel.py" line="243"/>
        <source>{n} events shown; scroll for older ones</source>
        <translation>{n} eventos exibidos; role para ver os mais antigos</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/events_panel.py" line="245"/>
        <source>{n} events</source>
        <translation>{n} eventos</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/events_panel.py" line="252"/>
        <source>Searching… {n} found so far (looked back to event #{id})</source>
        <translation>Buscando… {n} encontrados até agora (olhou até o evento nº {id})</translation>
    </message>
</context>
<context>
    <name>FirstRunWizard</name>
    <message>
        <location filename="../../checkout_desktop/ui/wizard.py" line="421"/>
        <source>Set up checkout-desktop</source>
        <translation>Configurar o checkout-desktop</translation>
    </message>
</context>
<context>
    <name>HistoryPanel</name>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="61"/>
        <source>The previous refund is still being confirmed with the service. Another refund or capture of this charge is refused until it is, so that money never moves twice.</source>
        <translation>O estorno anterior ainda está sendo confirmado com o serviço. Outro estorno ou captura desta cobrança fica recusado até lá, para que o dinheiro nunca seja movido duas vezes.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="66"/>
        <source>The previous capture is still being confirmed with the service. Another refund or capture of this charge is refused until it is, so that money never moves twice.</source>
        <translation>A captura anterior ainda está sendo confirmada com o serviço. Outro estorno ou captura desta cobrança fica recusado até lá, para que o dinheiro nunca seja movido duas vezes.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="71"/>
        <source>The previous cancellation is still being confirmed with the service. Another refund or capture of this charge is refused until it is, so that money never moves twice.</source>
        <translation>O cancelamento anterior ainda está sendo confirmado com o serviço. Outro estorno ou captura desta cobrança fica recusado até lá, para que o dinheiro nunca seja movido duas vezes.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="84"/>
        <source>The service could not be asked; its figures will be fetched again.</source>
        <translation>Não foi possível consultar o serviço; os valores serão consultados de novo.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="87"/>
        <source>The service shows: {status}, {amount} charged, {refunded} refunded.</source>
        <translation>O serviço mostra: {status}, {amount} cobrados, {refunded} estornados.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="101"/>
        <source>The request was sent but its answer was lost. The terminal is asking the service and will not send it again; nothing else can be done with this charge until then.</source>
        <translation>O pedido foi enviado, mas a resposta se perdeu. O terminal está consultando o serviço e não vai enviá-lo de novo; nada mais pode ser feito com esta cobrança até lá.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="108"/>
        <source>Not done: {why}.</source>
        <translation>Não realizado: {why}.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="219"/>
        <source>All charges</source>
        <translation>Todas as cobranças</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="222"/>
        <source>Reload</source>
        <translation>Recarregar</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="237"/>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="420"/>
        <source>Select a charge to see its timeline.</source>
        <translation>Selecione uma cobrança para ver sua linha do tempo.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="259"/>
        <source>Select a line to see its details.</source>
        <translation>Selecione uma linha para ver os detalhes.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="261"/>
        <source>Re&amp;fund…</source>
        <translation>Es&amp;tornar…</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="263"/>
        <source>Ca&amp;pture…</source>
        <translation>Ca&amp;pturar…</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="265"/>
        <source>&amp;Query now</source>
        <translation>&amp;Consultar agora</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="267"/>
        <source>&amp;Notifications</source>
        <translation>&amp;Notificações</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="268"/>
        <source>Recei&amp;pt</source>
        <translation>Com&amp;provante</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="271"/>
        <source>Print…</source>
        <translation>Imprimir…</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="272"/>
        <source>Save as PDF…</source>
        <translation>Salvar como PDF…</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="403"/>
        <source>occurred at the service: {at}</source>
        <translation>ocorreu no serviço: {at}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="408"/>
        <source>source: {ref}</source>
        <translation>origem: {ref}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="410"/>
        <source>changes: {changes}</source>
        <translation>mudanças: {changes}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="431"/>
        <source>refunded {amount}</source>
        <translation>estornado {amount}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="469"/>
        <source>The service confirmed where the charge stands; you may act on it again.</source>
        <translation>O serviço confirmou a situação da cobrança; você pode agir sobre ela de novo.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="496"/>
        <source>Refund charge {id} ({cards}). Money goes back to the customer&apos;s card; this cannot be undone.</source>
        <translation>Estornar a cobrança {id} ({cards}). O dinheiro volta para o cartão do cliente; não há como desfazer.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="500"/>
        <source>It is not captured yet: this cancels the authorization.</source>
        <translation>Ela ainda não foi capturada: isto cancela a autorização.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="502"/>
        <source>Refund</source>
        <translation>Estorno</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="520"/>
        <source>Refund of {amount} done.</source>
        <translation>Estorno de {amount} feito.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="535"/>
        <source>Capture</source>
        <translation>Captura</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="537"/>
        <source>Capture charge {id} ({cards}): the authorized amount is charged to the card.</source>
        <translation>Capturar a cobrança {id} ({cards}): o valor autorizado é cobrado no cartão.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="554"/>
        <source>Captured {amount}.</source>
        <translation>Capturado {amount}.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="566"/>
        <source>Asked the service just now.</source>
        <translation>Serviço consultado agora.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="580"/>
        <source>Working…</source>
        <translation>Processando…</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="590"/>
        <source>Cancelled.</source>
        <translation>Cancelado.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="597"/>
        <source>Failed: {why}</source>
        <translation>Falhou: {why}</translation>
    </message>
</context>
<context>
    <name>Labels</name>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="24"/>
        <source>Pending</source>
        <translation>Pendente</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="25"/>
        <source>Pre-authorized</source>
        <translation>Pré-autorizada</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="26"/>
        <source>Authorized</source>
        <translation>Autorizada</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="27"/>
        <source>Paid</source>
        <translation>Paga</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="28"/>
        <source>Captured</source>
        <translation>Capturada</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="29"/>
        <location filename="../../checkout_desktop/ui/labels.py" line="30"/>
        <source>Partially refunded</source>
        <translation>Estornada em parte</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="31"/>
        <source>Denied</source>
        <translation>Negada</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="32"/>
        <source>Error</source>
        <translation>Erro</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="33"/>
        <source>Canceled</source>
        <translation>Cancelada</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="34"/>
        <source>Refunded</source>
        <translation>Estornada</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="35"/>
        <source>Chargeback</source>
        <translation>Chargeback</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="36"/>
        <source>Expired</source>
        <translation>Expirada</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="37"/>
        <source>3DS approved</source>
        <translation>3DS aprovado</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="38"/>
        <source>3DS challenged</source>
        <translation>3DS em desafio</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="39"/>
        <source>3DS rejected</source>
        <translation>3DS recusado</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="41"/>
        <source>Recorded before sending</source>
        <translation>Registrada antes do envio</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="42"/>
        <source>Outcome unknown</source>
        <translation>Resultado desconhecido</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="43"/>
        <source>Created at the service</source>
        <translation>Criada no serviço</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="44"/>
        <source>Refused, not charged</source>
        <translation>Recusada, não cobrada</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="45"/>
        <source>Not found, not charged</source>
        <translation>Não encontrada, não cobrada</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="54"/>
        <source>Accepted</source>
        <translation>Aceita</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="55"/>
        <source>Duplicate</source>
        <translation>Duplicada</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="56"/>
        <source>Unknown type</source>
        <translation>Tipo desconhecido</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="57"/>
        <source>Self-test</source>
        <translation>Autoteste</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="58"/>
        <source>Rejected</source>
        <translation>Recusada</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="66"/>
        <source>Accepted: stored and applied to its charge.</source>
        <translation>Aceita: gravada e aplicada à sua cobrança.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="69"/>
        <source>Duplicate: the same body arrived before; stored, not applied again.</source>
        <translation>Duplicada: o mesmo corpo já tinha chegado; gravada, não aplicada de novo.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="72"/>
        <source>Unknown type: stored as received, not applied to any charge.</source>
        <translation>Tipo desconhecido: gravada como chegou, não aplicada a nenhuma cobrança.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="75"/>
        <source>Self-test: the inbox&apos;s own health check, not a charge event.</source>
        <translation>Autoteste: a verificação de saúde da própria caixa de entrada, não um evento de cobrança.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="78"/>
        <source>Rejected: the body could not be accepted; kept in quarantine.</source>
        <translation>Recusada: o corpo não pôde ser aceito; mantido em quarentena.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="88"/>
        <source>Request</source>
        <translation>Pedido</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="89"/>
        <source>Reply</source>
        <translation>Resposta</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="90"/>
        <source>Notification</source>
        <translation>Notificação</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="91"/>
        <source>Reconciliation</source>
        <translation>Conciliação</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="92"/>
        <source>3DS</source>
        <translation>3DS</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="93"/>
        <source>System</source>
        <translation>Sistema</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="100"/>
        <source>applied</source>
        <translation>aplicada</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="101"/>
        <source>no change</source>
        <translation>sem mudança</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="102"/>
        <source>older, ignored</source>
        <translation>mais antiga, ignorada</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="103"/>
        <source>recorded</source>
        <translation>registrado</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="104"/>
        <source>failed</source>
        <translation>falhou</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="116"/>
        <source>Built-in sandbox (no account needed)</source>
        <translation>Sandbox embutido (sem conta)</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="119"/>
        <source>Service sandbox</source>
        <translation>Sandbox do serviço</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="120"/>
        <source>Production</source>
        <translation>Produção</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="137"/>
        <source>no status</source>
        <translation>sem status</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="154"/>
        <source>after the reply</source>
        <translation>após a resposta</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="155"/>
        <source>at start-up</source>
        <translation>na inicialização</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="156"/>
        <source>on demand</source>
        <translation>a pedido</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="157"/>
        <location filename="../../checkout_desktop/ui/labels.py" line="158"/>
        <location filename="../../checkout_desktop/ui/labels.py" line="399"/>
        <source>scheduled check</source>
        <translation>verificação agendada</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="159"/>
        <source>before sending</source>
        <translation>antes de enviar</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="160"/>
        <source>after the refusal</source>
        <translation>após a recusa</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="161"/>
        <source>daily sweep</source>
        <translation>verificação diária</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="172"/>
        <source>in {count}x</source>
        <translation>em {count}x</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="176"/>
        <source>card</source>
        <translation>cartão</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="183"/>
        <source>capture of {amount}</source>
        <translation>captura de {amount}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="187"/>
        <source>cancellation of {amount}</source>
        <translation>cancelamento de {amount}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="190"/>
        <source>refund of {amount}</source>
        <translation>estorno de {amount}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="196"/>
        <source>requested</source>
        <translation>solicitado</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="197"/>
        <source>sent to the service</source>
        <translation>enviado ao serviço</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="198"/>
        <source>confirmed by the service</source>
        <translation>confirmado pelo serviço</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="202"/>
        <source>outcome unknown; the charge will be queried, never sent again</source>
        <translation>resultado desconhecido; a cobrança será consultada, nunca enviada de novo</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="206"/>
        <source>refused by the service</source>
        <translation>recusado pelo serviço</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="207"/>
        <source>not sent: it never reached the service</source>
        <translation>não enviado: não chegou ao serviço</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="210"/>
        <source>not done: the service&apos;s figures show no such change</source>
        <translation>não realizado: os valores do serviço não mostram essa mudança</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="214"/>
        <source>not visible at the service yet; it will be asked again, never sent again</source>
        <translation>ainda não aparece no serviço; será consultado de novo, nunca enviado de novo</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="232"/>
        <source>{status}, refunded {refunded} of {amount}</source>
        <translation>{status}, estornado {refunded} de {amount}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="256"/>
        <source>first status of the charge: {status}</source>
        <translation>primeiro status da cobrança: {status}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="262"/>
        <source>a later {status} update</source>
        <translation>atualização mais recente com o status {status}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="268"/>
        <source>{new} is later in the charge&apos;s life than {current}</source>
        <translation>{new} vem depois de {current} no ciclo da cobrança</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="274"/>
        <source>already {status}; added details the charge did not have</source>
        <translation>já estava com o status {status}; foram acrescentados dados que a cobrança não tinha</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="280"/>
        <source>{reason}; added details the charge did not have</source>
        <translation>{reason}; foram acrescentados dados que a cobrança não tinha</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="286"/>
        <source>already {status}; nothing new</source>
        <translation>já estava com o status {status}; nada de novo</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="292"/>
        <source>the charge is {denied}, which is final; {status} is not applied</source>
        <translation>a cobrança está com o status {denied}, que é definitivo; {status} não é aplicado</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="299"/>
        <source>{new} comes earlier in a charge&apos;s life than {current}; an older input never overwrites a newer state</source>
        <translation>{new} vem antes de {current} no ciclo da cobrança; uma informação mais antiga nunca substitui um estado mais recente</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="307"/>
        <source>{status} happened at {at}, before the current state ({current})</source>
        <translation>{status} ocorreu em {at}, antes do estado atual ({current})</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="313"/>
        <source>{new} is older than the current {current}</source>
        <translation>{new} é mais antigo que o status atual {current}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="319"/>
        <source>3DS challenge result {status} (paresStatus {pares})</source>
        <translation>resultado do desafio 3DS: {status} (paresStatus {pares})</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="325"/>
        <source>3DS challenge result {status}</source>
        <translation>resultado do desafio 3DS: {status}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="331"/>
        <source>older 3DS result; added the charge id</source>
        <translation>resultado 3DS mais antigo; foi acrescentado o id da cobrança</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="335"/>
        <source>3DS result {status} already recorded</source>
        <translation>resultado 3DS {status} já registrado</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="341"/>
        <source>3DS result {new} is older than the recorded {current}</source>
        <translation>resultado 3DS {new} é mais antigo que o registrado ({current})</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="348"/>
        <source>attempt for sale {sale} recorded before sending: {amount}, {cards}, late capture</source>
        <translation>tentativa da venda {sale} registrada antes do envio: {amount}, {cards}, captura posterior</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="355"/>
        <source>attempt for sale {sale} recorded before sending: {amount}, {cards}</source>
        <translation>tentativa da venda {sale} registrada antes do envio: {amount}, {cards}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="361"/>
        <source>attempt already {state}; {reason}</source>
        <translation>tentativa já em “{state}”; {reason}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="367"/>
        <source>the service has this charge ({status}); attempt resolved</source>
        <translation>o serviço tem esta cobrança ({status}); tentativa resolvida</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="373"/>
        <source>the service has the charge ({status})</source>
        <translation>o serviço tem a cobrança ({status})</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="379"/>
        <source>a notification shows the service has the charge ({status})</source>
        <translation>uma notificação mostra que o serviço tem a cobrança ({status})</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="385"/>
        <source>the charge has no status yet</source>
        <translation>a cobrança ainda não tem status</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="389"/>
        <source>{status} is not final</source>
        <translation>{status} não é um status definitivo</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="395"/>
        <source>expecting the notification of {status}</source>
        <translation>aguardando a notificação de {status}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="410"/>
        <source>not charged: the service has no charge ({error})</source>
        <translation>não cobrado: o serviço não tem a cobrança ({error})</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="416"/>
        <source>not charged: {error}</source>
        <translation>não cobrado: {error}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="422"/>
        <source>{error}; the service answered, so one query settles it</source>
        <translation>{error}; o serviço respondeu, então uma consulta resolve</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="428"/>
        <source>{error}; the charge may exist: it will be found by asking, never sent again</source>
        <translation>{error}; a cobrança pode existir: ela será localizada por consulta, nunca enviada de novo</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="435"/>
        <source>capture of {amount} requested</source>
        <translation>captura de {amount} solicitada</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="441"/>
        <source>refund of {amount} requested</source>
        <translation>estorno de {amount} solicitado</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="447"/>
        <source>capture failed: {error}; the charge will be queried to learn whether it happened</source>
        <translation>a captura falhou: {error}; a cobrança será consultada para saber se ela ocorreu</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="454"/>
        <source>refund failed: {error}; the charge will be queried to learn whether it happened</source>
        <translation>o estorno falhou: {error}; a cobrança será consultada para saber se ele ocorreu</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="461"/>
        <source>capture failed: {error}</source>
        <translation>a captura falhou: {error}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="467"/>
        <source>refund failed: {error}</source>
        <translation>o estorno falhou: {error}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="473"/>
        <source>capture outcome unknown</source>
        <translation>resultado da captura desconhecido</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="477"/>
        <source>refund outcome unknown</source>
        <translation>resultado do estorno desconhecido</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="481"/>
        <source>{action}: {reason}</source>
        <translation>{action}: {reason}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="487"/>
        <source>{trigger}: could not ask the service ({error}); will ask again</source>
        <translation>{trigger}: não foi possível consultar o serviço ({error}); será consultado de novo</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="494"/>
        <source>{trigger}: the service answered the request and has no such charge: nothing was charged</source>
        <translation>{trigger}: o serviço respondeu ao pedido e não tem essa cobrança: nada foi cobrado</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="503"/>
        <source>{trigger}: still no such charge {seconds} s after the attempt, past the point where it could appear: nothing was charged</source>
        <translation>{trigger}: a cobrança ainda não existe {seconds} s após a tentativa, depois do prazo em que poderia aparecer: nada foi cobrado</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="513"/>
        <source>{trigger}: the service has no such charge yet ({seconds} s after the attempt); the request may still be in progress there, so it will be asked again, never sent again</source>
        <translation>{trigger}: o serviço ainda não tem essa cobrança ({seconds} s após a tentativa); o pedido pode estar em andamento lá, então será consultado de novo, nunca enviado de novo</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="522"/>
        <source>{trigger}: asked the service: {reason}</source>
        <translation>{trigger}: serviço consultado: {reason}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="528"/>
        <source>{trigger} ({why}): the service answered: {error}</source>
        <translation>{trigger} ({why}): o serviço respondeu: {error}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="534"/>
        <source>{trigger} ({why}): could not ask the service: {error}</source>
        <translation>{trigger} ({why}): não foi possível consultar o serviço: {error}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="540"/>
        <source>{trigger} ({why}): {reason}</source>
        <translation>{trigger} ({why}): {reason}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="547"/>
        <source>{outcome}: {reason}</source>
        <translation>{outcome}: {reason}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="553"/>
        <source>not applied: {error}</source>
        <translation>não aplicada: {error}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="560"/>
        <source>the event-type header says {header} but the body is {body}; the body decided</source>
        <translation>o cabeçalho de tipo de evento diz {header}, mas o corpo é {body}; valeu o corpo</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="568"/>
        <source>a notification of a type this terminal does not know ({type}); stored as received, not applied to any charge</source>
        <translation>uma notificação de um tipo que este terminal não conhece ({type}); guardada como recebida, sem ser aplicada a nenhuma cobrança</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="573"/>
        <source>no type</source>
        <translation>sem tipo</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="578"/>
        <source>a self-test body without a nonce</source>
        <translation>um corpo de autoteste sem nonce</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="583"/>
        <source>the {type} body does not match the format: {details}</source>
        <translation>o corpo {type} não segue o formato: {details}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="587"/>
        <source>the body does not match the format: {details}</source>
        <translation>o corpo não segue o formato: {details}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="595"/>
        <source>the {type} body cannot be read ({error})</source>
        <translation>o corpo {type} não pode ser lido ({error})</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="597"/>
        <source>the body cannot be read ({error})</source>
        <translation>o corpo não pode ser lido ({error})</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="602"/>
        <source>the body is not valid JSON: {error}</source>
        <translation>o corpo não é um JSON válido: {error}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="608"/>
        <source>the body is JSON but not an object (got {type})</source>
        <translation>o corpo é JSON, mas não é um objeto (veio {type})</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="614"/>
        <source>the body is {size} bytes, over the limit of {limit} bytes; the first {limit} bytes are kept</source>
        <translation>o corpo tem {size} bytes, acima do limite de {limit} bytes; os primeiros {limit} bytes foram guardados</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="622"/>
        <source>the body is over the limit of {limit} bytes; the first {limit} bytes are kept</source>
        <translation>o corpo passa do limite de {limit} bytes; os primeiros {limit} bytes foram guardados</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="629"/>
        <source>the body did not arrive within {seconds} s ({size} bytes came); what came is kept</source>
        <translation>o corpo não chegou em {seconds} s ({size} bytes chegaram); o que chegou foi guardado</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/labels.py" line="636"/>
        <source>the content type {type} is not JSON; the body is kept</source>
        <translation>o tipo de conteúdo {type} não é JSON; o corpo foi guardado</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../../checkout_desktop/ui/main_window.py" line="122"/>
        <source>checkout-desktop — {env}</source>
        <translation>checkout-desktop — {env}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/main_window.py" line="141"/>
        <source>&amp;Charge</source>
        <translation>&amp;Cobrar</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/main_window.py" line="145"/>
        <source>&amp;Events</source>
        <translation>&amp;Eventos</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/main_window.py" line="145"/>
        <source>&amp;History</source>
        <translation>&amp;Histórico</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/main_window.py" line="145"/>
        <source>&amp;Settings</source>
        <translation>&amp;Configurações</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/main_window.py" line="259"/>
        <source>Charge {id}</source>
        <translation>Cobrança {id}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/main_window.py" line="260"/>
        <source>Now {status}</source>
        <translation>Agora {status}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/main_window.py" line="262"/>
        <source>{before} → {after}</source>
        <translation>{before} → {after}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/main_window.py" line="322"/>
        <source>Save receipt</source>
        <translation>Salvar comprovante</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/main_window.py" line="322"/>
        <source>PDF (*.pdf)</source>
        <translation>PDF (*.pdf)</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/main_window.py" line="335"/>
        <source>The receipt could not be saved: {why}</source>
        <translation>O comprovante não pôde ser salvo: {why}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/main_window.py" line="338"/>
        <source>Receipt saved: {path}</source>
        <translation>Comprovante salvo: {path}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/main_window.py" line="361"/>
        <source>A charge is in flight; the window closes once its reply is recorded.</source>
        <translation>Há uma cobrança em andamento; a janela fecha quando a resposta for gravada.</translation>
    </message>
</context>
<context>
    <name>MoneyActionDialog</name>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="147"/>
        <source>Amount</source>
        <translation>Valor</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="148"/>
        <source>Up to</source>
        <translation>Até</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="150"/>
        <source>Supervisor PIN</source>
        <translation>PIN do supervisor</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="168"/>
        <source>Type an amount above zero.</source>
        <translation>Digite um valor acima de zero.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="172"/>
        <source>At most {amount}.</source>
        <translation>No máximo {amount}.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_panel.py" line="184"/>
        <source>Wrong supervisor PIN.</source>
        <translation>PIN do supervisor incorreto.</translation>
    </message>
</context>
<context>
    <name>Receipt</name>
    <message>
        <location filename="../../checkout_desktop/ui/receipts.py" line="108"/>
        <source>SALE RECEIPT</source>
        <translation>COMPROVANTE DE VENDA</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/receipts.py" line="110"/>
        <source>REFUND RECEIPT</source>
        <translation>COMPROVANTE DE ESTORNO</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/receipts.py" line="113"/>
        <source>Date</source>
        <translation>Data</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/receipts.py" line="114"/>
        <source>Charge</source>
        <translation>Cobrança</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/receipts.py" line="117"/>
        <source>Original amount</source>
        <translation>Valor original</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/receipts.py" line="122"/>
        <source>Refunded now</source>
        <translation>Estornado agora</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/receipts.py" line="128"/>
        <source>Refunded in total</source>
        <translation>Estornado no total</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/receipts.py" line="133"/>
        <source>Amount</source>
        <translation>Valor</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/receipts.py" line="134"/>
        <source>Status</source>
        <translation>Situação</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/receipts.py" line="139"/>
        <source>Card</source>
        <translation>Cartão</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/receipts.py" line="145"/>
        <source>On this card</source>
        <translation>Neste cartão</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/receipts.py" line="151"/>
        <location filename="../../checkout_desktop/ui/receipts.py" line="158"/>
        <source>Installments</source>
        <translation>Parcelas</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/receipts.py" line="159"/>
        <source>single payment</source>
        <translation>à vista</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/receipts.py" line="163"/>
        <source>Authorization</source>
        <translation>Autorização</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/receipts.py" line="165"/>
        <source>NSU</source>
        <translation>NSU</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/receipts.py" line="193"/>
        <source>Keep this receipt.</source>
        <translation>Guarde este comprovante.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/receipts.py" line="240"/>
        <source>Print receipt</source>
        <translation>Imprimir comprovante</translation>
    </message>
</context>
<context>
    <name>ResultView</name>
    <message>
        <location filename="../../checkout_desktop/ui/charge_screen.py" line="97"/>
        <source>&amp;Print receipt</source>
        <translation>&amp;Imprimir comprovante</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_screen.py" line="99"/>
        <source>Save receipt as P&amp;DF…</source>
        <translation>Salvar comprovante em P&amp;DF…</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_screen.py" line="101"/>
        <source>&amp;Try another card</source>
        <translation>&amp;Tentar outro cartão</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_screen.py" line="103"/>
        <source>&amp;New sale (F2)</source>
        <translation>&amp;Nova venda (F2)</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_screen.py" line="114"/>
        <source>Receipt</source>
        <translation>Comprovante</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_screen.py" line="147"/>
        <source>Outcome unknown — checking</source>
        <translation>Resultado desconhecido — consultando</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_screen.py" line="150"/>
        <source>Not charged</source>
        <translation>Não cobrado</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_screen.py" line="156"/>
        <location filename="../../checkout_desktop/ui/charge_screen.py" line="165"/>
        <source>Charge {id}</source>
        <translation>Cobrança {id}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_screen.py" line="188"/>
        <source>{brand} •••• {last4} · {amount} · auth {auth} · NSU {nsu}</source>
        <translation>{brand} •••• {last4} · {amount} · autorização {auth} · NSU {nsu}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/charge_screen.py" line="200"/>
        <source>3DS: {status}</source>
        <translation>3DS: {status}</translation>
    </message>
</context>
<context>
    <name>SettingsPanel</name>
    <message>
        <location filename="../../checkout_desktop/ui/settings_panel.py" line="69"/>
        <source>System language</source>
        <translation>Idioma do sistema</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/settings_panel.py" line="75"/>
        <source>printed on receipts</source>
        <translation>impresso nos comprovantes</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/settings_panel.py" line="76"/>
        <source>General</source>
        <translation>Geral</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/settings_panel.py" line="78"/>
        <source>Environment</source>
        <translation>Ambiente</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/settings_panel.py" line="79"/>
        <source>Shop name</source>
        <translation>Nome da loja</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/settings_panel.py" line="80"/>
        <source>Language</source>
        <translation>Idioma</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/settings_panel.py" line="85"/>
        <source>any free port</source>
        <translation>qualquer porta livre</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/settings_panel.py" line="88"/>
        <source>No tunnel (local only)</source>
        <translation>Sem túnel (só local)</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/settings_panel.py" line="89"/>
        <source>My own HTTPS URL (manual)</source>
        <translation>Minha própria URL HTTPS (manual)</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/settings_panel.py" line="98"/>
        <source>Webhook and reconciliation</source>
        <translation>Webhook e conciliação</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/settings_panel.py" line="100"/>
        <source>Listener port</source>
        <translation>Porta do receptor</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/settings_panel.py" line="101"/>
        <source>Tunnel</source>
        <translation>Túnel</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/settings_panel.py" line="102"/>
        <source>Public URL</source>
        <translation>URL pública</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/settings_panel.py" line="103"/>
        <source>Query open charges every</source>
        <translation>Consultar cobranças em aberto a cada</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/settings_panel.py" line="109"/>
        <source>4 to 8 digits; empty keeps the current one</source>
        <translation>4 a 8 dígitos; vazio mantém o atual</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/settings_panel.py" line="110"/>
        <source>Remove PIN</source>
        <translation>Remover PIN</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/settings_panel.py" line="114"/>
        <source>Supervisor PIN for refunds</source>
        <translation>PIN do supervisor para estornos</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/settings_panel.py" line="119"/>
        <source>New PIN</source>
        <translation>Novo PIN</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/settings_panel.py" line="134"/>
        <source>stored in the keychain; type to replace</source>
        <translation>guardado no chaveiro; digite para substituir</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/settings_panel.py" line="135"/>
        <source>Credentials of the selected environment</source>
        <translation>Credenciais do ambiente escolhido</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/settings_panel.py" line="137"/>
        <source>Client id</source>
        <translation>Client id</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/settings_panel.py" line="138"/>
        <source>Merchant CNPJ</source>
        <translation>CNPJ do lojista</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/settings_panel.py" line="139"/>
        <source>Client secret</source>
        <translation>Client secret</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/settings_panel.py" line="140"/>
        <source>Card SDK token</source>
        <translation>Token do SDK de cartão</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/settings_panel.py" line="141"/>
        <source>Webhook token</source>
        <translation>Token do webhook</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/settings_panel.py" line="146"/>
        <source>&amp;Save settings</source>
        <translation>&amp;Salvar configurações</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/settings_panel.py" line="148"/>
        <source>Revert</source>
        <translation>Desfazer</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/settings_panel.py" line="197"/>
        <source>Refunds ask for the supervisor PIN.</source>
        <translation>Estornos pedem o PIN do supervisor.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/settings_panel.py" line="199"/>
        <source>No PIN: anyone at the terminal can refund.</source>
        <translation>Sem PIN: qualquer pessoa no terminal pode estornar.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/settings_panel.py" line="251"/>
        <source>The client id takes letters, digits, &apos;_&apos; and &apos;-&apos; only.</source>
        <translation>O client id aceita só letras, dígitos, &apos;_&apos; e &apos;-&apos;.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/settings_panel.py" line="258"/>
        <source>The merchant CNPJ is not valid.</source>
        <translation>O CNPJ do lojista não é válido.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/settings_panel.py" line="272"/>
        <source>No keychain is available to store the secrets.</source>
        <translation>Não há chaveiro disponível para guardar os segredos.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/settings_panel.py" line="285"/>
        <source>The settings could not be saved: {why}</source>
        <translation>As configurações não puderam ser salvas: {why}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/settings_panel.py" line="292"/>
        <source>Saved. The environment, language, port and tunnel apply at the next start.</source>
        <translation>Salvo. Ambiente, idioma, porta e túnel valem a partir do próximo início.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/settings_panel.py" line="294"/>
        <source>Saved.</source>
        <translation>Salvo.</translation>
    </message>
</context>
<context>
    <name>Terminal</name>
    <message>
        <location filename="../../checkout_desktop/ui/qt_app.py" line="95"/>
        <source>Test shop (built-in sandbox)</source>
        <translation>Loja de teste (sandbox embutido)</translation>
    </message>
</context>
<context>
    <name>TerminalStatusBar</name>
    <message>
        <location filename="../../checkout_desktop/ui/status_bar.py" line="48"/>
        <source>Environment: {name}</source>
        <translation>Ambiente: {name}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/status_bar.py" line="50"/>
        <location filename="../../checkout_desktop/ui/status_bar.py" line="110"/>
        <source>Token: not requested yet</source>
        <translation>Token: ainda não pedido</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/status_bar.py" line="52"/>
        <location filename="../../checkout_desktop/ui/status_bar.py" line="127"/>
        <source>Listener: starting</source>
        <translation>Receptor: iniciando</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/status_bar.py" line="92"/>
        <location filename="../../checkout_desktop/ui/status_bar.py" line="104"/>
        <source>Token: expired, renewed on next use</source>
        <translation>Token: expirado, renovado no próximo uso</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/status_bar.py" line="97"/>
        <source>Token: valid, {left} left</source>
        <translation>Token: válido, faltam {left}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/status_bar.py" line="101"/>
        <source>Token: requesting…</source>
        <translation>Token: pedindo…</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/status_bar.py" line="107"/>
        <source>Token: failed</source>
        <translation>Token: falhou</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/status_bar.py" line="118"/>
        <source>Listener: on {url}</source>
        <translation>Receptor: em {url}</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/status_bar.py" line="121"/>
        <source>Listener: failed</source>
        <translation>Receptor: falhou</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/status_bar.py" line="124"/>
        <source>Listener: stopped</source>
        <translation>Receptor: parado</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/status_bar.py" line="136"/>
        <source>Inbox: healthy</source>
        <translation>Caixa de entrada: saudável</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/status_bar.py" line="137"/>
        <source>Inbox: degraded</source>
        <translation>Caixa de entrada: degradada</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/status_bar.py" line="138"/>
        <source>Inbox: down</source>
        <translation>Caixa de entrada: fora do ar</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/status_bar.py" line="144"/>
        <source>{reason} (since {since})</source>
        <translation>{reason} (desde {since})</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/status_bar.py" line="155"/>
        <source>Tunnel: starting</source>
        <translation>Túnel: iniciando</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/status_bar.py" line="156"/>
        <source>Tunnel: up</source>
        <translation>Túnel: no ar</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/status_bar.py" line="157"/>
        <source>Tunnel: down</source>
        <translation>Túnel: fora do ar</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/status_bar.py" line="158"/>
        <source>Tunnel: restarting</source>
        <translation>Túnel: reiniciando</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/status_bar.py" line="172"/>
        <source>{n} charge(s) with unknown outcome: being checked</source>
        <translation>{n} cobrança(s) com resultado desconhecido: em consulta</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/status_bar.py" line="176"/>
        <source>No open attempts</source>
        <translation>Nenhuma tentativa em aberto</translation>
    </message>
</context>
<context>
    <name>TestPage</name>
    <message>
        <location filename="../../checkout_desktop/ui/wizard.py" line="345"/>
        <source>Test connection</source>
        <translation>Testar conexão</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/wizard.py" line="347"/>
        <source>Gets an access token and sends a test notification to the listener.</source>
        <translation>Obtém um token de acesso e envia uma notificação de teste ao receptor.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/wizard.py" line="349"/>
        <source>&amp;Run the test again</source>
        <translation>&amp;Testar de novo</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/wizard.py" line="370"/>
        <source>Testing…</source>
        <translation>Testando…</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/wizard.py" line="379"/>
        <source>The test was cancelled.</source>
        <translation>O teste foi cancelado.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/wizard.py" line="382"/>
        <source>Test</source>
        <translation>Teste</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/wizard.py" line="390"/>
        <source>Everything works. Press Finish to start charging.</source>
        <translation>Tudo funciona. Pressione Concluir para começar a cobrar.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/wizard.py" line="394"/>
        <source>Something failed (details above). You can go back and fix it, or finish now and fix it later in Settings.</source>
        <translation>Algo falhou (detalhes acima). Você pode voltar e corrigir, ou concluir agora e corrigir depois em Configurações.</translation>
    </message>
</context>
<context>
    <name>TimelineModel</name>
    <message>
        <location filename="../../checkout_desktop/ui/history_model.py" line="209"/>
        <source>Recorded</source>
        <translation>Gravado</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_model.py" line="210"/>
        <source>Source</source>
        <translation>Origem</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_model.py" line="211"/>
        <source>Input</source>
        <translation>Entrada</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_model.py" line="212"/>
        <source>Outcome</source>
        <translation>Resultado</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_model.py" line="213"/>
        <source>Status</source>
        <translation>Situação</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_model.py" line="214"/>
        <source>Why</source>
        <translation>Por quê</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/history_model.py" line="300"/>
        <source>Occurred at the service: {at}</source>
        <translation>Ocorreu no serviço: {at}</translation>
    </message>
</context>
<context>
    <name>TunnelNotice</name>
    <message>
        <location filename="../../checkout_desktop/ui/main_window.py" line="78"/>
        <source>I updated the merchant panel</source>
        <translation>Já atualizei o painel do lojista</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/main_window.py" line="90"/>
        <source>The public address changed. Until the merchant panel&apos;s notification URL is {url}, no notification reaches this terminal.</source>
        <translation>O endereço público mudou. Enquanto a URL de notificação no painel do lojista não for {url}, nenhuma notificação chega a este terminal.</translation>
    </message>
</context>
<context>
    <name>WebhookPage</name>
    <message>
        <location filename="../../checkout_desktop/ui/wizard.py" line="229"/>
        <source>Webhook</source>
        <translation>Webhook</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/wizard.py" line="235"/>
        <source>No tunnel (local only)</source>
        <translation>Sem túnel (só local)</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/wizard.py" line="236"/>
        <source>My own HTTPS URL (manual)</source>
        <translation>Minha própria URL HTTPS (manual)</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/wizard.py" line="253"/>
        <source>Listener port</source>
        <translation>Porta do receptor</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/wizard.py" line="254"/>
        <source>Tunnel</source>
        <translation>Túnel</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/wizard.py" line="255"/>
        <source>Public URL</source>
        <translation>URL pública</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/wizard.py" line="256"/>
        <source>Webhook token</source>
        <translation>Token do webhook</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/wizard.py" line="275"/>
        <source>The built-in sandbox delivers its notifications straight to this computer: no tunnel and no token to enter.</source>
        <translation>O sandbox embutido entrega as notificações direto neste computador: sem túnel e sem token para digitar.</translation>
    </message>
    <message>
        <location filename="../../checkout_desktop/ui/wizard.py" line="283"/>
        <source>The service reaches the terminal through a public HTTPS URL. Save it in the merchant panel as the notification URL, with the token shown there.</source>
        <translation>O serviço chega ao terminal por uma URL HTTPS pública. Salve-a no painel do lojista como URL de notificação, com o token mostrado lá.</translation>
    </message>
</context>
</TS>
